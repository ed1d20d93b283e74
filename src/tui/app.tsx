// The TUI's root component. Finished blocks go to <Static> (written once, then owned by the
// terminal's scrollback and selection); the dynamic region holds only the live tail: the
// streaming message, running tools, dialogs, the prompt and the status line, kept shorter
// than the screen so Ink never clears and redraws the whole terminal.
// Typing at the prompt, the slash commands, the prompt's completion, the home list and the
// screen hand-off (pager, editor) live beside it: prompt-keys.ts, run-command.ts,
// completion.ts, home-list.ts, screen-handoff.ts.
import { Box, Static, useStdout } from "ink"
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react"
import { initialUi, type AppHost, type Ui } from "./app-state"
import { COMMANDS } from "./commands"
import { useCompletion } from "./completion"
import type { Controller } from "./controller"
import { filtered, permissionKey, questionKey, secretKey, selectKey, trustKey, type SelectAction, type SelectUi } from "./dialog-keys"
import * as E from "./editor"
import { homeListKey, useHomeList } from "./home-list"
import { decodeKeys, type Key } from "./keys"
import type { Keymap } from "./keymap"
import { pagerKey } from "./pager"
import { promptKey, submit } from "./prompt-keys"
import { runNamed } from "./run-command"
import { closePager, useScreenHandoff } from "./screen-handoff"
import { autoApprovable, createSessionTools, orderModels, type ModelPrefsStore } from "./session-tools"
import type { Store } from "./store"
import type { ThemeControl } from "./ui-settings"
import { useRawInput } from "./use-raw-input"
import { BlockView, type BlockOptions } from "./view/block"
import { PermissionDialog, QuestionDialog, SecretDialog, SelectDialog, TrustDialog } from "./view/dialogs"
import { Home } from "./view/home"
import { Pager } from "./view/pager"
import { InboxView, PromptView, StatusLine } from "./view/prompt"

export interface AppProps {
  store: Store
  controller: Controller
  onExit: () => void
  history?: string[]
  placeholder?: string
  /** Where the /models picker's recents and favourites are kept. */
  modelPrefs?: ModelPrefsStore
  /** The user's $VISUAL/$EDITOR on a text (see TuiOptions.editText). */
  editText?: (text: string, name: string) => Promise<string>
  /** Keys from tui.json (leader, palette, commands); none: only the built-in keys. */
  keymap?: Keymap
  /** The theme in use, for /themes. */
  themes?: ThemeControl
}

export function App({ store, controller, onExit, history: saved = [], placeholder = "Ask anything… (/help for keys and commands)", modelPrefs, editText, keymap, themes }: AppProps) {
  const state = useSyncExternalStore(store.subscribe, store.getState)
  const { stdout } = useStdout()
  const tools = useMemo(() => createSessionTools({ api: controller.api, store, write: (s) => void stdout.write(s), env: process.env, prefs: modelPrefs }), [])
  const [size, setSize] = useState({ rows: stdout.rows || 24, columns: stdout.columns || 80 })
  useEffect(() => {
    const onResize = () => setSize({ rows: stdout.rows || 24, columns: stdout.columns || 80 })
    stdout.on("resize", onResize)
    return () => void stdout.off("resize", onResize)
  }, [stdout])
  const [ui, setUiState] = useState(initialUi)
  const uiRef = useRef(ui)
  const history = useRef<string[]>([...saved])
  const setUi = (next: Partial<Ui>) => {
    uiRef.current = { ...uiRef.current, ...next }
    setUiState(uiRef.current)
  }

  const completion = useCompletion(ui, state, (word) => controller.completeFiles(word), (files) => setUi({ files }))
  const leaderAt = useRef(0)
  const home = useHomeList(ui, uiRef, setUi, state.sessions, state.route, controller)
  const host: AppHost = {
    store,
    controller,
    tools,
    stdout,
    size,
    ui: () => uiRef.current,
    setUi,
    homeItems: () => home.itemsRef.current,
    onExit,
    editText,
    keymap,
    themes,
    history: history.current,
    leaderAt,
  }

  useScreenHandoff(host, ui.editing, () => submit(host))

  /** The palette and /themes: choosing runs the command, or keeps the theme; moving previews a theme. */
  const onOwnSelect = (next: SelectUi, action: SelectAction) => {
    const err = (e: unknown) => store.notify((e as Error).message, "error")
    if (action.type === "close") {
      if (next.kind === "themes") themes?.revert()
      return setUi({ select: undefined })
    }
    if (action.type === "choose") {
      setUi({ select: undefined })
      if (next.kind === "palette") return runNamed(host, action.value)
      try {
        store.notify(`Theme “${action.value}” saved to ${themes!.choose(action.value)}`)
      } catch (e) {
        themes?.revert()
        err(e)
      }
      return
    }
    setUi({ select: next })
    const item = filtered(next)[next.selected]
    if (next.kind === "themes" && item) {
      try {
        themes?.preview(item.value)
      } catch (e) {
        err(e)
      }
    }
  }

  const onKey = (key: Key) => {
    const s = store.getState()
    const u = uiRef.current
    const inHome = u.home !== undefined && s.route === "home" && !s.questions[0] && !s.permissions[0] && !s.trust && !u.secret && !u.select
    if (u.pager) {
      const [next, action] = pagerKey(u.pager, key, size.rows)
      return action === "close" ? closePager(host) : setUi({ pager: next })
    }
    if (inHome) return homeListKey(host, key)
    if (key.name === "ctrl" && key.text === "d") return onExit()
    if (key.name === "ctrl" && key.text === "c") {
      if (u.secret) return setUi({ secret: undefined })
      if (u.select) return (u.select.kind === "themes" && themes?.revert(), setUi({ select: undefined }))
      if (u.perm.message !== undefined) return setUi({ perm: { selected: 0 } })
      if (s.trust) return controller.keepHeldBack()
      if (u.editor.text) return setUi({ editor: E.emptyEditor(), histIndex: 0 })
      return onExit()
    }
    const question = s.questions[0]
    if (question) {
      const [next, action] = questionKey(question, u.question, key)
      setUi({ question: next })
      if (action.type === "reply") controller.answerQuestion(question.id, action.answers)
      if (action.type === "reject") controller.answerQuestion(question.id, undefined)
      return
    }
    const perm = s.autoApprove ? s.permissions.find((p) => !autoApprovable(p)) : s.permissions[0]
    if (perm) {
      const [next, action] = permissionKey(u.perm, key)
      setUi({ perm: next })
      if (action.type === "reply") controller.replyPermission(perm.id, action.reply, action.message)
      return
    }
    if (s.trust) {
      const [next, action] = trustKey(u.trust, key)
      setUi({ trust: next })
      if (action.type === "trust") void controller.grantTrust()
      if (action.type === "keep") controller.keepHeldBack()
      return
    }
    if (u.secret) {
      const [next, action] = secretKey(u.secret, key)
      if (action.type === "cancel") return setUi({ secret: undefined })
      if (action.type === "submit") {
        setUi({ secret: undefined })
        return void controller.connect(next.providerID, action.key)
      }
      return setUi({ secret: next })
    }
    if (u.select) {
      const [next, action] = selectKey(u.select, key)
      if (next.kind === "palette" || next.kind === "themes") return onOwnSelect(next, action)
      if (action.type === "close") return setUi({ select: undefined })
      if (action.type === "choose") {
        setUi({ select: undefined })
        if (next.kind === "connect") {
          const signIn = controller.signInChoice(action.value)
          if (signIn) return void controller.signIn(signIn)
          return setUi({ secret: { providerID: action.value, text: "" } })
        }
        if (next.kind === "sessions" || next.kind === "children") return void controller.openSession(action.value)
        if (next.kind === "agents") return store.set({ agent: action.value })
        if (next.kind === "variants") return controller.chooseVariant(action.value)
        if (next.kind === "fork") return void tools.fork(action.value, controller.openSession).then((text) => text !== undefined && setUi({ editor: E.setText(text) }))
        if (next.kind === "mcps") return void tools.toggleMcp(action.value)
        if (next.kind === "timeline") return void tools.revertTo(action.value).then((text) => text !== undefined && setUi({ editor: E.setText(text) }))
        tools.usedModel(action.value)
        return controller.chooseModel(action.value)
      }
      if (action.type === "favorite") {
        const starred = tools.favorite(action.value)
        const items = orderModels(next.items.map((i) => ({ label: i.value, value: i.value })), tools.modelPrefs())
        store.notify(starred ? `★ ${action.value}` : `Unstarred ${action.value}`)
        return setUi({ select: { ...next, items, selected: Math.max(0, filtered({ ...next, items }).findIndex((i) => i.value === action.value)) } })
      }
      if (action.type === "delete") {
        void controller.deleteSession(action.value)
        return setUi({ select: { ...next, items: next.items.filter((x) => x.value !== action.value), selected: Math.max(0, next.selected - 1) } })
      }
      return setUi({ select: next })
    }
    promptKey(host, completion, key)
  }

  useRawInput(
    (raw) => {
      for (const key of decodeKeys(raw)) onKey(key)
    },
    (text) => {
      const s = store.getState()
      const u = uiRef.current
      const oneLine = text.replace(/\r\n?|\n/g, " ")
      if (s.questions[0] && u.question.custom !== undefined) return setUi({ question: { ...u.question, custom: u.question.custom + oneLine } })
      if (s.permissions[0] && u.perm.message !== undefined) return setUi({ perm: { ...u.perm, message: u.perm.message + oneLine } })
      // A pasted key joins the hidden field; it never reaches the editor.
      if (u.secret) return setUi({ secret: { ...u.secret, text: u.secret.text + text.replace(/\s+/g, "") } })
      if (u.pager) return u.pager.typing !== undefined ? setUi({ pager: { ...u.pager, typing: u.pager.typing + oneLine } }) : undefined
      if (u.select) return setUi({ select: { ...u.select, filter: u.select.filter + oneLine, selected: 0 } })
      if (u.home && s.route === "home") return setUi({ home: { ...u.home, filter: u.home.filter + oneLine, selected: 0, confirm: undefined } })
      // The path of an image file (a dragged file) attaches the image as an `[Image N]` chip.
      const image = controller.pastedImage(text)
      setUi({ editor: image ? E.insert(u.editor, `${image} `) : E.paste(u.editor, text) })
    },
    !ui.editing,
  )

  // Auto-approve: each ask it may answer is allowed once as it arrives, and says so in the transcript.
  useEffect(() => {
    if (!state.autoApprove) return
    for (const p of state.permissions.filter(autoApprovable)) {
      controller.replyPermission(p.id, "once")
      store.print({ kind: "notice", key: `auto:${p.id}`, text: `⏵⏵ auto-approved ${p.permission}${p.patterns.length ? `: ${p.patterns.slice(0, 3).join(", ")}` : ""}`, tone: "dim" })
    }
  }, [state.permissions, state.autoApprove])

  // Heights: the dynamic region must stay shorter than the screen.
  const rows = size.rows
  const promptLines = Math.min(ui.editor.text.split("\n").length, Math.max(3, Math.floor(rows / 4)))
  const dialogRows = Math.max(4, Math.floor(rows / 2) - 2)
  const question = state.questions[0]
  const perm = state.autoApprove ? state.permissions.find((p) => !autoApprovable(p)) : state.permissions[0]
  const dialogShown = question || perm || state.trust || ui.select || ui.secret
  const homeOpen = ui.home !== undefined && state.route === "home"
  const inboxRows = state.inbox.length ? Math.min(state.inbox.length, 5) + 1 : 0
  const fixed = promptLines + 2 + 1 + inboxRows + (state.notice ? 1 : 0) + completion.suggestions.length + (dialogShown ? dialogRows + 2 : 0) + 2
  const liveBudget = Math.max(3, rows - fixed)
  const liveRows = Math.max(2, Math.floor(liveBudget / Math.max(1, state.live.length)) - 1)
  const printedOpts: BlockOptions = useMemo(
    () => ({ columns: size.columns, showThinking: state.showThinking, showDetails: state.showDetails }),
    [size.columns, state.showThinking, state.showDetails],
  )
  const liveOpts: BlockOptions = { ...printedOpts, maxRows: liveRows }
  const model = state.model ? `${state.model.providerID}/${state.model.modelID}` : state.last ? undefined : (state.defaultModel ?? (state.noModel ? "no model: type /connect" : undefined))

  return (
    <Box flexDirection="column">
      <Static items={ui.frozen ?? state.printed}>{(item) => <BlockView key={item.id} block={item.block} opts={printedOpts} />}</Static>
      {ui.pager ? <Pager pager={ui.pager} rows={rows} waiting={question || perm ? "an ask is waiting: q to answer it" : undefined} /> : null}
      {!ui.pager && state.route === "home" && !dialogShown ? (
        homeOpen ? (
          <Home sessions={home.items} ui={ui.home} rows={Math.max(1, Math.min(10, rows - fixed - 5))} searching={home.searching} />
        ) : (
          <Home sessions={state.sessions} rows={Math.max(0, Math.min(5, rows - fixed - 3))} />
        )
      ) : null}
      {ui.pager ? null : (
        <>
      {state.live.map((b) => (
        <BlockView key={b.key} block={b} opts={liveOpts} />
      ))}
      {question ? (
        <QuestionDialog request={question} ui={ui.question} />
      ) : perm ? (
        <PermissionDialog
          request={perm}
          selected={ui.perm.selected}
          message={ui.perm.message}
          other={perm.sessionID !== state.session?.id ? perm.sessionID : undefined}
          maxRows={dialogRows}
        />
      ) : state.trust ? (
        <TrustDialog status={state.trust} selected={ui.trust.selected} maxRows={dialogRows} />
      ) : ui.secret ? (
        <SecretDialog providerID={ui.secret.providerID} length={[...ui.secret.text].length} />
      ) : ui.select ? (
        <SelectDialog title={ui.select.title} items={filtered(ui.select)} selected={ui.select.selected} filter={ui.select.filter} maxRows={dialogRows - 3} hint={ui.select.kind === "sessions" ? "↑↓ choose · enter open · del delete · esc close" : undefined} />
      ) : null}
      {state.route === "session" && state.inbox.length ? <InboxView items={state.inbox} columns={size.columns} /> : null}
      <PromptView
        editor={ui.editor}
        agent={state.agent}
        placeholder={placeholder}
        maxLines={promptLines}
        suggestions={completion.suggestions}
        selected={Math.min(ui.sugSelected, Math.max(0, completion.suggestions.length - 1))}
        focused={!dialogShown && !homeOpen}
      />
      <StatusLine
        agent={state.agent}
        model={model}
        last={state.last}
        cost={state.cost}
        cache={state.cache}
        variant={state.variant}
        contextLimit={state.contextLimit}
        lspErrors={Object.values(state.lspErrors).reduce((a, b) => a + b, 0)}
        busy={state.busy}
        busyElsewhere={state.busyElsewhere}
        retry={state.retry}
        ready={state.ready}
        notice={state.notice}
        changes={state.changes}
        auto={state.autoApprove}
      />
        </>
      )}
    </Box>
  )
}

export { COMMANDS }

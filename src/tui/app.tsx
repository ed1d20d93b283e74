// The TUI's root component. Finished blocks go to <Static> (written once, then owned by the
// terminal's scrollback and selection); the dynamic region holds only the live tail: the
// streaming message, running tools, dialogs, the prompt and the status line, kept shorter
// than the screen so Ink never clears and redraws the whole terminal.
// This file holds the state and draws; what keys do lives beside it: key-router.ts (which part
// of the screen has the keys, and the dialogs' answers), prompt-keys.ts (typing and sending),
// run-command.ts (the slash commands), completion.ts, home-list.ts and screen-handoff.ts.
import { Box, Static, useStdout } from "ink"
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react"
import { initialUi, type AppHost, type Ui } from "./app-state"
import { COMMANDS } from "./commands"
import { useCompletion } from "./completion"
import type { Controller } from "./controller"
import { filtered } from "./dialog-keys"
import { useHomeList } from "./home-list"
import { routeKey, routePaste, shownPermission } from "./key-router"
import { decodeKeys } from "./keys"
import type { Keymap } from "./keymap"
import { submit } from "./prompt-keys"
import { useScreenHandoff } from "./screen-handoff"
import { autoApprovable, createSessionTools, type ModelPrefsStore } from "./session-tools"
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
  const { stdout, write: writeThroughInk } = useStdout()
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
  const leaderAt = useRef(0)
  const setUi = (next: Partial<Ui>) => {
    uiRef.current = { ...uiRef.current, ...next }
    setUiState(uiRef.current)
  }
  const completion = useCompletion(ui, state, (word) => controller.completeFiles(word), (files) => setUi({ files }))
  const home = useHomeList(ui, uiRef, setUi, state.sessions, state.route, controller)
  const host: AppHost = {
    store,
    controller,
    tools,
    stdout,
    writeThroughInk,
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
  useRawInput(
    (raw) => {
      for (const key of decodeKeys(raw)) routeKey(host, completion, key)
    },
    (text) => routePaste(host, text),
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
  const perm = shownPermission(state)
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

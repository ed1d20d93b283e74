// Where a key or a paste goes: the pager, the home list, the open dialog (a question, a
// permission ask, the trust prompt, /connect's key field, a picker), else the prompt; and what
// a dialog's answer does. Only one of them has the keys at a time, in that order, which is the
// order the App draws them in. dialog-keys.ts says what a key means inside a dialog; this file
// carries the answer out. The prompt's own keys are prompt-keys.ts.
import type { AppHost } from "./app-state"
import type { Completion } from "./completion"
import { filtered, permissionKey, questionKey, secretKey, selectKey, trustKey, type SelectAction, type SelectUi } from "./dialog-keys"
import * as E from "./editor"
import { homeListKey } from "./home-list"
import type { Key } from "./keys"
import { pagerKey } from "./pager"
import { promptKey } from "./prompt-keys"
import { runNamed } from "./run-command"
import { closePager } from "./screen-handoff"
import { autoApprovable, orderModels } from "./session-tools"
import type { StoreState } from "./store"

/** The permission ask on screen: with auto-approve on, the first one it may not answer. */
export const shownPermission = (s: Pick<StoreState, "autoApprove" | "permissions">) => (s.autoApprove ? s.permissions.find((p) => !autoApprovable(p)) : s.permissions[0])

export function routeKey(host: AppHost, completion: Completion, key: Key) {
  const { store, controller, themes, setUi } = host
  const s = store.getState()
  const u = host.ui()
  const inHome = u.home !== undefined && s.route === "home" && !s.questions[0] && !s.permissions[0] && !s.trust && !u.secret && !u.select
  if (u.pager) {
    const [next, action] = pagerKey(u.pager, key, host.size.rows)
    return action === "close" ? closePager(host) : setUi({ pager: next })
  }
  if (inHome) return homeListKey(host, key)
  if (key.name === "ctrl" && key.text === "d") return host.onExit()
  if (key.name === "ctrl" && key.text === "c") {
    if (u.secret) return setUi({ secret: undefined })
    if (u.select) return (u.select.kind === "themes" && themes?.revert(), setUi({ select: undefined }))
    if (u.perm.message !== undefined) return setUi({ perm: { selected: 0 } })
    if (s.trust) return controller.keepHeldBack()
    if (u.editor.text) return setUi({ editor: E.emptyEditor(), histIndex: 0 })
    return host.onExit()
  }
  const question = s.questions[0]
  if (question) {
    const [next, action] = questionKey(question, u.question, key)
    setUi({ question: next })
    if (action.type === "reply") controller.answerQuestion(question.id, action.answers)
    if (action.type === "reject") controller.answerQuestion(question.id, undefined)
    return
  }
  const perm = shownPermission(s)
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
  if (u.select) return pickerKey(host, u.select, key)
  promptKey(host, completion, key)
}

/** A key in a picker (sessions, models, agents, /connect's providers, …). */
function pickerKey(host: AppHost, select: SelectUi, key: Key) {
  const { store, controller, tools, setUi } = host
  const [next, action] = selectKey(select, key)
  if (next.kind === "palette" || next.kind === "themes") return ownSelect(host, next, action)
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

/** The palette and /themes: choosing runs the command, or keeps the theme; moving previews a theme. */
function ownSelect(host: AppHost, next: SelectUi, action: SelectAction) {
  const { store, themes, setUi } = host
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

/** A paste goes to the field that has the keys: a dialog's text, the pager's search, a filter, else the prompt. */
export function routePaste(host: AppHost, text: string) {
  const { store, controller, setUi } = host
  const s = store.getState()
  const u = host.ui()
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
}

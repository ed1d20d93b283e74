// The session tools of the TUI (issue 35 part 5): /rename, /fork from a chosen message, /copy
// through OSC 52, /timeline (undo from a chosen message), the auto-approve toggle, and model
// recents and favourites for the /models picker. Everything goes through the sdk; nothing
// here runs at startup.
import type { McpStatus, MessageWithParts, PermissionRequest, PermissionRule, Session } from "../protocol"
import type { Api } from "./api"
import type { Store } from "./store"

/** What a user prompt reads as in a picker: its text, on one line. */
export function promptText(m: MessageWithParts): string {
  return m.parts
    .filter((p) => p.type === "text" && !(p as { synthetic?: boolean }).synthetic)
    .map((p) => (p as { text: string }).text)
    .join("\n")
}

/** The user messages of the open session a /fork or /timeline may start from, oldest first (a reverted tail left out). */
export function userPrompts(messages: MessageWithParts[], revertAt?: string): { id: string; text: string }[] {
  return messages
    .filter((m) => m.info.role === "user" && (!revertAt || m.info.id < revertAt))
    .map((m) => ({ id: m.info.id, text: promptText(m) }))
    .filter((m) => m.text.trim())
}

/** The text of the last answer: the newest assistant message with text, its text parts joined. */
export function lastAnswer(messages: MessageWithParts[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.info.role !== "assistant") continue
    const text = m.parts
      .filter((p) => p.type === "text" && !(p as { synthetic?: boolean }).synthetic)
      .map((p) => (p as { text: string }).text)
      .join("\n")
      .trim()
    if (text) return text
  }
  return undefined
}

/**
 * The OSC 52 sequence that puts `text` on the terminal's clipboard (the system one where the
 * terminal allows it, over ssh too). Inside tmux the sequence is wrapped for passthrough, so it
 * reaches the outer terminal even when tmux's own set-clipboard is off.
 */
export function osc52(text: string, env: Record<string, string | undefined> = {}): string {
  const seq = `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`
  return env.TMUX ? `\x1bPtmux;${seq.replace(/\x1b/g, "\x1b\x1b")}\x1b\\` : seq
}

/**
 * Asks auto-approve may answer: everything but what only a rule naming it may allow
 * (sandbox_escape, as `run --auto`) and the plan hand-offs, which switch the agent and are
 * the user's to decide.
 */
const NEVER_AUTO = new Set(["sandbox_escape", "plan_exit", "plan_enter"])
export const autoApprovable = (p: PermissionRequest) => !NEVER_AUTO.has(p.permission)

/**
 * A server switched off for a session is a rule of the session's own: every tool of that server
 * (`<server>_<tool>`, the MCP tool ids) denied, which takes the tools out of what the model is
 * offered (permission's disabledTools) and refuses a call anyway. Switching it on drops the rule.
 */
export const mcpOffRule = (server: string): PermissionRule => ({ permission: `${server.replace(/[^a-zA-Z0-9_-]/g, "_")}_*`, pattern: "*", action: "deny" })
const sameRule = (a: PermissionRule, b: PermissionRule) => a.permission === b.permission && a.pattern === b.pattern && a.action === b.action
export const mcpOff = (session: Pick<Session, "permission"> | undefined, server: string) => (session?.permission ?? []).some((r) => sameRule(r, mcpOffRule(server)))

/** The model picker's persisted choices: most recent first, and the starred ones. */
export interface ModelPrefs {
  recent: string[]
  favorite: string[]
}
export interface ModelPrefsStore {
  load(): ModelPrefs
  save(prefs: ModelPrefs): void
}

const RECENT_MAX = 5

/** A choice moves to the front of the recents. */
export const withRecent = (p: ModelPrefs, model: string): ModelPrefs => ({ ...p, recent: [model, ...p.recent.filter((m) => m !== model)].slice(0, RECENT_MAX) })
export const toggleFavorite = (p: ModelPrefs, model: string): ModelPrefs => ({
  ...p,
  favorite: p.favorite.includes(model) ? p.favorite.filter((m) => m !== model) : [...p.favorite, model],
})

/** The picker's rows: favourites (★) first, then recents, then the rest in their order. */
export function orderModels(items: { label: string; value: string }[], p: ModelPrefs): { label: string; value: string; detail?: string }[] {
  const known = new Set(items.map((i) => i.value))
  const fav = p.favorite.filter((m) => known.has(m))
  const recent = p.recent.filter((m) => known.has(m) && !fav.includes(m))
  const rest = items.filter((i) => !fav.includes(i.value) && !recent.includes(i.value))
  return [
    ...fav.map((m) => ({ label: `★ ${m}`, value: m, detail: p.recent.includes(m) ? "favourite · recent" : "favourite" })),
    ...recent.map((m) => ({ label: m, value: m, detail: "recent" })),
    ...rest,
  ]
}

export function createSessionTools(opts: { api: Api; store: Store; write: (s: string) => void; env?: Record<string, string | undefined>; prefs?: ModelPrefsStore }) {
  const { api, store } = opts
  const fail = (what: string) => (e: unknown) => void store.notify(`${what}: ${e instanceof Error ? e.message : String(e)}`, "error")
  let prefs: ModelPrefs | undefined
  // Read on the first /models, never at startup.
  const loadPrefs = () => (prefs ??= opts.prefs?.load() ?? { recent: [], favorite: [] })
  const savePrefs = (next: ModelPrefs) => {
    prefs = next
    opts.prefs?.save(next)
  }
  return {
    /** `/rename <title>`: the session's new title, stored by the core (session list, `wright session list`). */
    async rename(title: string) {
      const s = store.getState().session
      if (!s) return store.notify("No session to rename")
      const t = title.trim()
      if (!t) return store.notify(`Usage: /rename <new title>  (now: “${s.title}”)`, "error")
      const updated = await api.updateSession(s.id, { title: t }).catch((e) => void fail("Rename")(e))
      if (!updated) return
      store.set({ session: updated })
      store.print({ kind: "header", key: `rename:${Date.now()}`, title: updated.title, detail: "renamed" })
      store.notify(`Renamed to “${updated.title}”`)
    },
    /** The prompts a /fork or /timeline picker lists, newest first. */
    prompts(): { label: string; value: string; detail?: string }[] {
      const s = store.getState().session
      const list = userPrompts(store.messages(), s?.revert?.messageID)
      return list.map((m, i) => ({ label: m.text.split("\n")[0]!.slice(0, 100), value: m.id, detail: `#${i + 1}` })).reverse()
    },
    /**
     * Forks the session before the chosen prompt (its earlier messages are copied) and opens the
     * fork; resolves with the chosen prompt's text for the prompt line, to send again or change.
     */
    async fork(messageID: string, open: (id: string) => Promise<unknown>): Promise<string | undefined> {
      const s = store.getState().session
      if (!s) return void store.notify("No session to fork")
      const chosen = store.messages().find((m) => m.info.id === messageID)
      const forked = await api.forkSession(s.id, messageID).catch((e) => void fail("Fork")(e))
      if (!forked) return undefined
      await open(forked.id)
      store.notify(`Forked into “${forked.title}”`)
      return chosen ? promptText(chosen) : undefined
    },
    /** /timeline: undoes from the chosen prompt on (it and what followed; files too); its text returns to the prompt. */
    async revertTo(messageID: string): Promise<string | undefined> {
      const s = store.getState()
      const id = s.session?.id
      if (!id) return undefined
      const chosen = store.messages().find((m) => m.info.id === messageID)
      if (s.busy) await api.abort(id).catch(() => {})
      const reverted = await api.revert(id, messageID).catch((e) => void fail("Timeline")(e))
      if (!reverted) return undefined
      const text = chosen ? promptText(chosen) : ""
      store.print({ kind: "notice", key: `timeline:${messageID}:${Date.now()}`, text: `↶ back to: ${text.split("\n")[0]!.slice(0, 80)} (it and what followed are undone; /redo restores)`, tone: "dim" })
      return text
    },
    /** `/copy`: the last answer onto the clipboard through OSC 52. */
    copy() {
      const text = lastAnswer(store.messages())
      if (!text) return store.notify("Nothing to copy yet: no answer in this session")
      opts.write(osc52(text, opts.env))
      store.notify(`Copied the last answer (${text.length} characters) to the clipboard`)
    },
    /** Turns auto-approve on or off; while on, the status line says so. */
    toggleAuto() {
      const on = !store.getState().autoApprove
      store.set({ autoApprove: on })
      store.notify(on ? "Auto-approve on: permission asks are allowed once, without asking (not sandbox escapes or plan hand-offs); /auto again turns it off" : "Auto-approve off")
    },
    /** /mcps: each configured server, its status, and whether this session has it off. */
    async mcpItems(): Promise<{ label: string; value: string; detail?: string }[]> {
      const status: Record<string, McpStatus> = await api.mcp()
      const s = store.getState().session
      return Object.entries(status).map(([name, st]) => ({
        label: `${mcpOff(s, name) ? "○" : "●"} ${name}`,
        value: name,
        detail: `${mcpOff(s, name) ? "off for this session" : "on"} · ${st.status}${st.status === "failed" ? `: ${st.error.slice(0, 60)}` : ""}`,
      }))
    },
    /** Switches a server's tools off (or on again) for the open session; the next step sees it. */
    async toggleMcp(server: string) {
      const s = store.getState().session
      if (!s) return store.notify("Open or start a session first: servers are switched per session")
      const off = mcpOff(s, server)
      const rules = (s.permission ?? []).filter((r) => !sameRule(r, mcpOffRule(server)))
      const updated = await api.updateSession(s.id, { permission: off ? rules : [...rules, mcpOffRule(server)] }).catch((e) => void fail("MCP")(e))
      if (!updated) return
      store.set({ session: updated })
      store.notify(off ? `MCP server ${server} is on again for this session` : `MCP server ${server} is off for this session: its tools are not offered`)
    },
    modelPrefs: () => loadPrefs(),
    /** A model was chosen: it leads the recents. */
    usedModel(model: string) {
      savePrefs(withRecent(loadPrefs(), model))
    },
    /** ctrl+f in the picker: star or unstar a model; answers the new order. */
    favorite(model: string): boolean {
      const next = toggleFavorite(loadPrefs(), model)
      savePrefs(next)
      return next.favorite.includes(model)
    },
  }
}

export type SessionTools = ReturnType<typeof createSessionTools>

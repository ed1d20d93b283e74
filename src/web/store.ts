// The page's link to the server: one sdk client per project, the global event stream
// (EventSource: the browser reconnects by itself and sends Last-Event-ID), and the sdk's
// session state reducer. Auth is the pairing cookie (or the browser's basic-auth prompt):
// the client sends no credential of its own.
import { addSessions, applyEvent, createClient, createSessionState, isBusy, loadMessages, type Client, type InboxItem } from "../sdk"
import type { AgentInfo, BusEvent, ConfigProviders, GlobalEvent, PartInput } from "../protocol"

export type Listener = () => void

export interface Choice {
  model?: { providerID: string; modelID: string }
  agent?: string
  variant?: string
}

/**
 * The device key the pairing redirect put in the fragment (`#key=…`), kept in this origin's
 * localStorage: the API wants it beside the cookie, which other ports of the host also receive.
 */
function deviceKey(): string | undefined {
  const m = /^#key=([\w-]+)$/.exec(location.hash)
  if (m) {
    localStorage.setItem("wright.key", m[1]!)
    history.replaceState(null, "", location.pathname)
  }
  return localStorage.getItem("wright.key") ?? undefined
}

export function createStore() {
  const key = deviceKey()
  const headers: Record<string, string> = key ? { "x-wright-key": key } : {}
  const state = createSessionState()
  const clients = new Map<string, Client>()
  const listeners = new Set<Listener>()
  let scheduled = false
  const ui = {
    open: undefined as string | undefined,
    connected: false,
    error: undefined as string | undefined,
    agents: [] as AgentInfo[],
    providers: undefined as ConfigProviders | undefined,
    choice: {} as Choice,
    listedAt: 0 as number,
    /** Project directories the server knows (GET /project), listed even before they have sessions. */
    projects: [] as string[],
    /** Prompts this page sent to a busy session, with the user-message count at which the session has taken each. */
    queued: new Map<string, { text: string; takenAt: number }[]>(),
  }

  /** One render per frame however many events arrive. */
  function notify() {
    if (scheduled) return
    scheduled = true
    requestAnimationFrame(() => {
      scheduled = false
      for (const fn of [...listeners]) fn()
    })
  }

  const client = (directory: string) => {
    let c = clients.get(directory)
    if (!c) clients.set(directory, (c = createClient({ baseUrl: location.origin, directory, headers, fetch: (r) => fetch(r) })))
    return c
  }
  const userCount = (sessionID: string) => (state.messages.get(sessionID) ?? []).filter((m) => m.info.role === "user").length
  const dirOf = (sessionID: string) => state.sessions.get(sessionID)?.directory ?? ""
  const fail = (what: string) => (e: unknown) => {
    ui.error = `${what}: ${(e as Error).message}`
    notify()
  }

  async function refreshSessions() {
    const root = createClient({ baseUrl: location.origin, headers, fetch: (r) => fetch(r) })
    const projects = await root.project.list()
    ui.projects = [...new Set([...ui.projects, ...projects.map((p) => p.directory)])]
    await Promise.all(
      projects.map(async ({ directory }) => {
        const c = client(directory)
        const [list, permissions, questions] = await Promise.all([
          c.session.list({ roots: true, limit: 100 }).catch(() => []),
          c.permission.list().catch(() => []),
          c.question.list().catch(() => []),
          c.session.status().then((all) => Object.entries(all).forEach(([id, st]) => state.status.set(id, st))).catch(() => {}),
        ])
        addSessions(state, directory, list)
        for (const p of permissions) state.permissions.set(p.id, p)
        for (const q of questions) state.questions.set(q.id, q)
      }),
    )
    ui.listedAt = performance.now()
    notify()
  }

  let refreshTimer: ReturnType<typeof setTimeout> | undefined
  /** A session we have not heard of (another process started it): list again, once per burst. */
  function refreshSoon() {
    if (refreshTimer) return
    refreshTimer = setTimeout(() => {
      refreshTimer = undefined
      refreshSessions().catch(() => {})
    }, 300)
  }

  function connect() {
    const source = new EventSource(key ? `/global/event?key=${encodeURIComponent(key)}` : "/global/event")
    let dropped = false
    source.onopen = () => {
      ui.connected = true
      // Back after a drop: whatever the stream did not replay (a server without Last-Event-ID
      // replay) is read again, so the page is not left stale.
      if (dropped) {
        refreshSessions().catch(() => {})
        if (ui.open) open(ui.open).catch(() => {})
      }
      dropped = false
      notify()
    }
    source.onerror = () => {
      dropped = true
      ui.connected = false
      notify()
    }
    source.onmessage = (m) => {
      let e: GlobalEvent
      try {
        e = JSON.parse(m.data)
      } catch {
        return
      }
      const event = e.payload as BusEvent
      const sessionID = (event.properties as { sessionID?: string }).sessionID
      const before = sessionID ? isBusy(state, sessionID) : false
      const changed = applyEvent(state, event, e.directory)
      if (sessionID && !state.sessions.has(sessionID) && event.type.startsWith("session.")) refreshSoon()
      if (sessionID) attention(sessionID, event, before)
      if (changed) notify()
    }
  }

  /** The page's title and a notification when a session needs input or finishes. */
  function attention(sessionID: string, event: BusEvent, wasBusy: boolean) {
    const title = state.sessions.get(sessionID)?.info.title ?? "a session"
    let say: string | undefined
    if (event.type === "permission.asked" || event.type === "question.asked") say = `Needs input: ${title}`
    else if (wasBusy && !isBusy(state, sessionID)) say = `Finished: ${title}`
    if (!say) return
    document.title = `${event.type.endsWith(".asked") ? "●" : "✓"} ${say} · wright`
    if (typeof Notification !== "undefined" && Notification.permission === "granted" && (document.hidden || ui.open !== sessionID)) new Notification("wright", { body: say, tag: sessionID })
  }

  async function open(sessionID: string) {
    ui.open = sessionID
    document.title = `${state.sessions.get(sessionID)?.info.title ?? "Session"} · wright`
    notify()
    const c = client(dirOf(sessionID))
    const [messages, diff] = await Promise.all([c.session.messages(sessionID), c.session.diff(sessionID).catch(() => [])])
    loadMessages(state, sessionID, messages)
    state.diffs.set(sessionID, diff)
    // Queued prompts: the inbox route may not exist on this server (404): nothing queued then.
    c.request<InboxItem[]>("GET", `/session/${encodeURIComponent(sessionID)}/inbox`)
      .then((items) => {
        state.inbox.set(sessionID, items)
        notify()
      })
      .catch(() => {})
    await loadChoices(dirOf(sessionID))
    notify()
  }

  let choicesFor: string | undefined
  async function loadChoices(directory: string) {
    if (choicesFor === directory) return
    choicesFor = directory
    const c = client(directory)
    const [agents, providers] = await Promise.all([c.agent.list().catch(() => []), c.config.providers().catch(() => undefined)])
    ui.agents = agents.filter((a) => a.mode !== "subagent" && !a.hidden)
    ui.providers = providers
  }

  return {
    state,
    ui,
    subscribe(fn: Listener) {
      listeners.add(fn)
      return () => void listeners.delete(fn)
    },
    notify,
    async start() {
      connect()
      await refreshSessions().catch(fail("Listing sessions"))
    },
    open: (id: string) => open(id).catch(fail("Opening the session")),
    async create(directory: string) {
      const s = await client(directory).session.create({})
      addSessions(state, directory, [s])
      await open(s.id)
    },
    async send(sessionID: string, parts: PartInput[]) {
      const { model, agent, variant } = ui.choice
      // Sent while the agent works, the server queues it (the inbox) and answers at once. Until
      // its inbox says so (or on a server without one), the page shows it queued itself, until
      // the session takes it as a user message.
      const text = parts.map((p) => (p.type === "text" ? p.text : "")).join(" ")
      const mine = ui.queued.get(sessionID) ?? []
      // Taken when the session has this many user messages (prompts are taken in order).
      const local = isBusy(state, sessionID) ? { text, takenAt: Math.max(userCount(sessionID), mine[mine.length - 1]?.takenAt ?? 0) + 1 } : undefined
      if (local) ui.queued.set(sessionID, [...(ui.queued.get(sessionID) ?? []), local])
      notify()
      await client(dirOf(sessionID))
        .session.promptAsync(sessionID, { parts, model, agent, variant })
        .catch((e) => {
          if (local) ui.queued.set(sessionID, (ui.queued.get(sessionID) ?? []).filter((q) => q !== local))
          throw e
        })
    },
    /** Prompts sent while the session worked that it has not taken yet. */
    queued(sessionID: string): string[] {
      const server = state.inbox.get(sessionID)
      if (server?.length) return server.map((i) => `${i.delivery === "steer" ? "(steer) " : ""}${i.parts.map((p) => p.text ?? "").join(" ")}`)
      const users = userCount(sessionID)
      const left = (ui.queued.get(sessionID) ?? []).filter((q) => users < q.takenAt)
      ui.queued.set(sessionID, left)
      return left.map((q) => q.text)
    },
    stop: (sessionID: string) => client(dirOf(sessionID)).session.abort(sessionID).catch(fail("Stop")),
    /** Reverts the newest user message that is not reverted yet (the TUI's /undo). */
    async undo(sessionID: string) {
      const info = state.sessions.get(sessionID)?.info
      const users = (state.messages.get(sessionID) ?? []).filter((m) => m.info.role === "user")
      const revertedAt = info?.revert?.messageID
      const target = [...users].reverse().find((m) => !revertedAt || m.info.id < revertedAt)
      if (!target) return
      await client(dirOf(sessionID)).session.revert(sessionID, { messageID: target.info.id }).catch(fail("Undo"))
    },
    redo: (sessionID: string) => client(dirOf(sessionID)).session.unrevert(sessionID).catch(fail("Redo")),
    permission: (requestID: string, reply: "once" | "always" | "reject") => {
      const p = state.permissions.get(requestID)
      return client(dirOf(p?.sessionID ?? "")).permission.reply(requestID, reply).catch(fail("Permission"))
    },
    answer: (requestID: string, answers: string[][] | undefined) => {
      const q = state.questions.get(requestID)
      const c = client(dirOf(q?.sessionID ?? ""))
      return (answers ? c.question.reply(requestID, answers) : c.question.reject(requestID)).catch(fail("Question"))
    },
    findFiles: (sessionID: string, query: string) => client(dirOf(sessionID)).find.files(query, { limit: 8 }).catch(() => [] as string[]),
    directoryOf: dirOf,
  }
}

export type Store = ReturnType<typeof createStore>

// The main thread's model of what is on screen, fed by bus events. It coalesces bursts
// (text deltas arrive per token) into at most one new snapshot per frame (~30 fps), moves
// settled blocks to the append-only `printed` list (written once to scrollback) and keeps the
// rest in `live`. Only the messages of the open session are held, and of an old session only
// the newest page is loaded.
import type { AssistantMessage, BusEvent, InboxItem, MessageWithParts, ModelRef, Part, PermissionRequest, QuestionRequest, Session, SessionStatus, TrustStatus } from "../protocol"
import type { AgentInfo } from "./api"
import { messageBlocks, type Block } from "./blocks"

export interface Printed {
  id: string
  block: Block
}

export interface Notice {
  text: string
  tone: "info" | "error"
}

export interface StoreState {
  version: number
  ready: boolean
  /** "opening": a session given at start (-c, -s) is being read; neither home nor a session is drawn. */
  route: "home" | "session" | "opening"
  session?: Session
  sessions: Session[]
  printed: Printed[]
  live: Block[]
  busy: boolean
  /** Another wright process runs this session (holds its lease): shown read-only, following it. */
  busyElsewhere?: { pid: number; hostname: string }
  retry?: { attempt: number; message: string; next: number }
  permissions: PermissionRequest[]
  questions: QuestionRequest[]
  /** Set while the dialog asks whether to trust the folder: what its config would do once trusted. */
  trust?: TrustStatus
  /** Primary agents (Tab cycles them). */
  agents: AgentInfo[]
  /** Every agent an `@name` mention may name. */
  mentions: string[]
  /** Slash commands the server defines (config, Markdown, MCP prompts, skills). */
  commands: { name: string; description?: string }[]
  agent: string
  model?: ModelRef
  /** The variant prompts are sent with (--variant, ctrl+t); undefined: the model's default. */
  variant?: string
  /** The model a prompt that names none goes to (the config's, else the server's choice), shown until one is picked or answers. */
  defaultModel?: string
  /** No provider can give a model yet (no key, nothing configured): the status line says /connect. */
  noModel?: boolean
  last?: AssistantMessage
  cost: number
  /** Prompt-cache tokens summed over the open session's steps (the last step's are on `last`). */
  cache: { read: number; write: number }
  notice?: Notice
  hasOlder: boolean
  showThinking: boolean
  showDetails: boolean
  /** /auto: permission asks are answered "once" without a dialog (the status line shows it). */
  autoApprove?: boolean
  contextLimit?: number
  /** Errors per file from the last `lsp.diagnostics` of each file the tools wrote (files with none left out). */
  lspErrors: Record<string, number>
  /** The open session's changed files with their line counts (session.diff, /diff). */
  changes?: { file: string; additions: number; deletions: number }[]
  /** Prompts sent to the open session while it worked, waiting for delivery (steer or queue). */
  inbox: InboxItem[]
}

export const FRAME_MS = 33
export const PAGE = 50

export function createStore(opts: { frameMs?: number; now?: () => number } = {}) {
  const frameMs = opts.frameMs ?? FRAME_MS
  const now = opts.now ?? Date.now
  let state: StoreState = {
    version: 0,
    ready: false,
    route: "home",
    sessions: [],
    printed: [],
    live: [],
    busy: false,
    permissions: [],
    questions: [],
    agents: [],
    mentions: [],
    commands: [],
    agent: "build",
    lspErrors: {},
    cost: 0,
    cache: { read: 0, write: 0 },
    hasOlder: false,
    showThinking: false,
    showDetails: false,
    inbox: [],
  }
  const listeners = new Set<() => void>()
  // The open session's messages, oldest first, and what of them has been printed.
  let messages: MessageWithParts[] = []
  const byId = new Map<string, MessageWithParts>()
  let printedKeys = new Set<string>()
  let settledIndex = 0
  let epoch = 0
  const statuses = new Map<string, SessionStatus>()
  let timer: ReturnType<typeof setTimeout> | undefined
  let lastFlush = 0
  let noticeTimer: ReturnType<typeof setTimeout> | undefined
  let patch: Partial<StoreState> = {}
  let pendingErrors: { name: string; data: Record<string, unknown> }[] = []
  let errorSeq = 0

  function schedule() {
    if (timer) return
    const wait = Math.max(0, frameMs - (now() - lastFlush))
    timer = setTimeout(flush, wait)
  }

  /** Builds the next snapshot now (tests and user actions call it; events go through schedule). */
  function flush() {
    if (timer) clearTimeout(timer)
    timer = undefined
    lastFlush = now()
    const printed = [...state.printed]
    const live = settle(printed)
    printErrors(printed)
    const id = state.session?.id
    const status = id ? statuses.get(id) : undefined
    state = {
      ...state,
      ...patch,
      version: state.version + 1,
      printed: printed.length === state.printed.length ? state.printed : printed,
      live,
      busy: status !== undefined && status.type !== "idle",
      busyElsewhere: status?.type === "busy" ? status.holder : undefined,
      retry: status?.type === "retry" ? status : undefined,
      last: lastAssistant(),
      cost: messages.reduce((n, m) => n + (m.info.role === "assistant" ? m.info.cost : 0), 0),
      cache: cacheTotal(state.cache),
    }
    patch = {}
    for (const fn of listeners) fn()
  }

  /** The same object while the sums do not change, so the status line does not re-render. */
  function cacheTotal(prev: { read: number; write: number }) {
    let read = 0
    let write = 0
    for (const m of messages) if (m.info.role === "assistant") (read += m.info.tokens.cache.read), (write += m.info.tokens.cache.write)
    return read === prev.read && write === prev.write ? prev : { read, write }
  }

  function settle(printed: Printed[]): Block[] {
    const live: Block[] = []
    const id = state.session?.id
    const status = id ? statuses.get(id) : undefined
    const idle = !status || status.type === "idle"
    const revertAt = (patch.session ?? state.session)?.revert?.messageID
    let blocked = false
    let userCreated: number | undefined
    for (let i = settledIndex; i < messages.length; i++) {
      const m = messages[i]!
      if (revertAt && m.info.id >= revertAt) continue
      if (m.info.role === "user") userCreated = m.info.time.created
      else userCreated = byId.get(m.info.parentID)?.info.time.created ?? userCreated
      for (const { block, settled } of messageBlocks(m, { later: i < messages.length - 1, idle, userCreated })) {
        if (printedKeys.has(block.key)) continue
        if (!blocked && settled) {
          printedKeys.add(block.key)
          printed.push({ id: `${epoch}:${block.key}`, block })
        } else {
          blocked = true
          live.push(block)
        }
      }
      const finished = m.info.role === "user" || m.info.time.completed !== undefined || m.info.error !== undefined || idle
      if (!blocked && i === settledIndex && finished) settledIndex = i + 1
    }
    return live
  }

  function printErrors(printed: Printed[]) {
    if (!pendingErrors.length) return
    const id = state.session?.id
    const status = id ? statuses.get(id) : undefined
    if (status && status.type !== "idle") return
    const last = messages[messages.length - 1]?.info
    for (const err of pendingErrors) {
      if (last?.role === "assistant" && last.error?.name === err.name) continue
      const message = typeof err.data?.message === "string" ? err.data.message : err.name
      printed.push({ id: `${epoch}:error:${++errorSeq}`, block: { kind: "notice", key: `error:${errorSeq}`, text: `${err.name}: ${message}`, tone: "error" } })
    }
    pendingErrors = []
  }

  function lastAssistant(): AssistantMessage | undefined {
    for (let i = messages.length - 1; i >= 0; i--) {
      const info = messages[i]!.info
      if (info.role === "assistant" && (info.tokens.input > 0 || info.tokens.output > 0 || i === messages.length - 1)) return info
    }
    return undefined
  }

  function upsertMessage(info: MessageWithParts["info"]): MessageWithParts {
    let m = byId.get(info.id)
    if (m) {
      m.info = info
      return m
    }
    m = { info, parts: [] }
    byId.set(info.id, m)
    let i = messages.length
    while (i > 0 && messages[i - 1]!.info.id > info.id) i--
    messages.splice(i, 0, m)
    if (i < settledIndex) settledIndex = i
    return m
  }

  function upsertPart(part: Part) {
    const m = byId.get(part.messageID)
    if (!m) return
    const i = m.parts.findIndex((p) => p.id === part.id)
    if (i >= 0) m.parts[i] = part
    else {
      let j = m.parts.length
      while (j > 0 && m.parts[j - 1]!.id > part.id) j--
      m.parts.splice(j, 0, part)
    }
  }

  function upsertSession(info: Session) {
    const list = state.sessions.filter((s) => s.id !== info.id)
    if (!info.parentID) list.unshift(info)
    list.sort((a, b) => b.time.updated - a.time.updated)
    patch.sessions = list
    if (state.session?.id === info.id) patch.session = info
  }

  function apply(e: BusEvent) {
    const current = state.session?.id
    switch (e.type) {
      case "session.created":
      case "session.updated":
        upsertSession(e.properties.info)
        break
      case "session.deleted":
        patch.sessions = (patch.sessions ?? state.sessions).filter((s) => s.id !== e.properties.sessionID)
        break
      case "session.status":
        statuses.set(e.properties.sessionID, e.properties.status)
        break
      case "session.idle":
        statuses.set(e.properties.sessionID, { type: "idle" })
        break
      case "session.inbox.updated":
        if (e.properties.sessionID === current) patch.inbox = e.properties.items
        break
      case "session.diff":
        if (e.properties.sessionID === current) patch.changes = e.properties.diff.map(({ file, additions, deletions }) => ({ file, additions, deletions }))
        break
      case "session.error": {
        const err = e.properties.error
        if (!err || err.name === "MessageAbortedError") break
        if (e.properties.sessionID && e.properties.sessionID !== current) break
        // Shown once the turn settles, unless the failed step's footer already shows it.
        pendingErrors.push(err)
        break
      }
      case "message.updated":
        if (e.properties.sessionID === current) {
          const info = e.properties.info
          // A hand-off (plan_exit, plan_enter) sends the next prompt to the new agent too.
          if (info.role === "user" && !byId.has(info.id) && info.agent !== (patch.agent ?? state.agent) && state.agents.some((a) => a.name === info.agent)) patch.agent = info.agent
          upsertMessage(info)
        }
        break
      case "message.removed":
        if (e.properties.sessionID === current) {
          const m = byId.get(e.properties.messageID)
          if (m) {
            byId.delete(m.info.id)
            const i = messages.indexOf(m)
            messages.splice(i, 1)
            if (i < settledIndex) settledIndex--
          }
        }
        break
      case "message.part.updated":
        if (e.properties.sessionID === current) upsertPart(e.properties.part)
        break
      case "message.part.delta": {
        if (e.properties.sessionID !== current) break
        const m = byId.get(e.properties.messageID)
        const i = m ? m.parts.findIndex((p) => p.id === e.properties.partID) : -1
        if (!m || i < 0) break
        const part = m.parts[i] as Record<string, unknown>
        const field = e.properties.field
        m.parts[i] = { ...part, [field]: String(part[field] ?? "") + e.properties.delta } as Part
        break
      }
      case "message.part.removed":
        if (e.properties.sessionID === current) {
          const m = byId.get(e.properties.messageID)
          if (m) m.parts = m.parts.filter((p) => p.id !== e.properties.partID)
        }
        break
      case "permission.asked":
        patch.permissions = [...(patch.permissions ?? state.permissions).filter((p) => p.id !== e.properties.id), e.properties]
        break
      case "permission.replied":
        patch.permissions = (patch.permissions ?? state.permissions).filter((p) => p.id !== e.properties.requestID)
        break
      case "question.asked":
        patch.questions = [...(patch.questions ?? state.questions).filter((q) => q.id !== e.properties.id), e.properties]
        break
      case "question.replied":
      case "question.rejected":
        patch.questions = (patch.questions ?? state.questions).filter((q) => q.id !== e.properties.requestID)
        break
      case "tui.toast.show": {
        const bad = e.properties.variant === "error" || e.properties.variant === "warning"
        showNotice(e.properties.message.split("\n")[0]!, bad ? "error" : "info")
        // An error stays readable in scrollback after the notice is gone.
        if (bad) print({ kind: "notice", key: `toast:${++errorSeq}`, text: e.properties.message, tone: "error" })
        return
      }
      case "lsp.diagnostics": {
        const { [e.properties.file]: _, ...rest } = patch.lspErrors ?? state.lspErrors
        patch.lspErrors = e.properties.errors > 0 ? { ...rest, [e.properties.file]: e.properties.errors } : rest
        break
      }
      default:
        return
    }
    schedule()
  }

  function showNotice(text: string, tone: Notice["tone"] = "info") {
    if (noticeTimer) clearTimeout(noticeTimer)
    noticeTimer = setTimeout(() => {
      patch.notice = undefined
      schedule()
    }, 5000)
    noticeTimer.unref?.()
    patch.notice = { text, tone }
    schedule()
  }

  function print(block: Block) {
    const printed = [...state.printed, { id: `${epoch}:${block.key}`, block }]
    state = { ...state, printed }
    printedKeys.add(block.key)
    schedule()
  }

  return {
    getState: () => state,
    subscribe(fn: () => void) {
      listeners.add(fn)
      return () => void listeners.delete(fn)
    },
    apply,
    flush,
    set(p: Partial<StoreState>) {
      Object.assign(patch, p)
      schedule()
    },
    print,
    notify: showNotice,
    setStatuses(map: Record<string, SessionStatus>) {
      // The same statuses again (they are asked for at start and on each open) draw nothing new.
      let changed = false
      for (const [k, v] of Object.entries(map)) {
        const old = statuses.get(k)
        if (old === v || (old && JSON.stringify(old) === JSON.stringify(v))) continue
        statuses.set(k, v)
        changed = true
      }
      if (changed) schedule()
    },
    /** Shows a session: a header, then its newest messages (already loaded) in scrollback. */
    open(session: Session, loaded: MessageWithParts[], hasOlder: boolean, fresh = false) {
      epoch++
      printedKeys = new Set()
      messages = []
      byId.clear()
      settledIndex = 0
      pendingErrors = []
      patch.session = session
      patch.route = "session"
      patch.hasOlder = hasOlder
      patch.changes = undefined
      patch.inbox = []
      state = { ...state, session }
      const detail = [session.parentID ? "subagent session · /parent goes back" : "", session.worktree ? `worktree ${session.worktree.branch}` : "", hasOlder ? "older messages: /history" : ""].filter(Boolean).join(" · ")
      print({ kind: "header", key: `header:${session.id}`, title: fresh ? "New session" : session.title, detail: detail || undefined })
      for (const m of loaded) {
        upsertMessage(m.info)
        for (const p of m.parts) upsertPart(p)
      }
      flush()
    },
    /** Prints an older page above nothing: it lands below, under its own header. */
    printOlder(page: MessageWithParts[], hasOlder: boolean) {
      print({ kind: "header", key: `older-header:${page[0]?.info.id ?? now()}`, title: `Earlier messages (${page.length})`, detail: hasOlder ? "more: /history" : undefined })
      let userCreated: number | undefined
      for (let i = 0; i < page.length; i++) {
        const m = page[i]!
        if (m.info.role === "user") userCreated = m.info.time.created
        for (const { block } of messageBlocks(m, { later: true, idle: true, userCreated })) print({ ...block, key: `older:${block.key}` })
      }
      patch.hasOlder = hasOlder
      flush()
    },
    home() {
      epoch++
      printedKeys = new Set()
      messages = []
      byId.clear()
      settledIndex = 0
      patch.session = undefined
      patch.route = "home"
      state = { ...state, session: undefined }
      flush()
    },
    /** Prints the newest tool call of the open session again, with its whole output. */
    expandLast(): boolean {
      for (let i = state.printed.length - 1; i >= 0; i--) {
        const p = state.printed[i]!
        if (!p.id.startsWith(`${epoch}:`)) break
        if (p.block.kind === "tool") {
          print({ ...p.block, key: `${p.block.key}:expanded:${now()}`, expanded: true })
          return true
        }
      }
      return false
    },
    /** The oldest loaded message id of the open session (cursor for older pages). */
    oldest: () => messages[0]?.info.id,
    messages: () => messages,
    statusOf: (id: string) => statuses.get(id),
  }
}

export type Store = ReturnType<typeof createStore>

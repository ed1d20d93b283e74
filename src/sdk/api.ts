import type {
  AgentInfo,
  BusEvent,
  CommandInfo,
  ConfigProviders,
  FileContent,
  FileDiff,
  FileNode,
  FileStatus,
  FindMatch,
  GlobalEvent,
  HealthInfo,
  InboxItem,
  InboxItemUpdate,
  HeapSnapshotInfo,
  McpStatus,
  LspStatus,
  FormatterStatus,
  PluginStatus,
  MessageWithParts,
  Part,
  PathInfo,
  PermissionReply,
  PermissionRequest,
  PromptInput,
  ProviderList,
  QuestionRequest,
  Session,
  SessionCommandInput,
  SessionCreateInput,
  SessionMcpInput,
  SessionEditorInput,
  EditorFileReply,
  SessionRevertInput,
  SessionShellInput,
  SessionStatus,
  SessionSummarizeInput,
  SessionUpdateInput,
  SkillInfo,
  Todo,
  ToolListItem,
  TrustStatus,
} from "../protocol"
import type { Transport } from "./transport"
import { subscribeEvents, type SubscribeOptions } from "./events"

export type StreamOptions = Omit<SubscribeOptions, "open">

const resume = (lastId: string | undefined) => (lastId === undefined ? undefined : { "last-event-id": lastId })

/** The routes, grouped as OpenCode's SDK groups them. */
export function createApi(t: Transport) {
  const { request } = t
  const seg = encodeURIComponent
  const s = (id: string) => `/session/${seg(id)}`
  const m = (id: string, messageID: string) => `${s(id)}/message/${seg(messageID)}`

  return {
    global: {
      health: () => request<HealthInfo>("GET", "/global/health"),
      /** Events of every project as `{directory, payload}`; reconnects until `signal` aborts. */
      event: (o: StreamOptions = {}): AsyncIterable<GlobalEvent> =>
        subscribeEvents<GlobalEvent>({ ...o, open: (signal, lastId) => t.open("GET", "/global/event", { signal, headers: resume(lastId) }) }),
    },
    event: {
      /**
       * Events of the project; reconnects when the stream drops, until `signal` aborts, with the
       * last id it saw (Last-Event-ID): the events in between are replayed, none missed.
       */
      /** With `coalesce`, consecutive text deltas of one part may arrive merged (same final text, fewer events). */
      subscribe: ({ coalesce, ...o }: StreamOptions & { coalesce?: boolean } = {}): AsyncIterable<BusEvent> =>
        subscribeEvents<BusEvent>({ ...o, open: (signal, lastId) => t.open("GET", "/event", { signal, headers: resume(lastId), ...(coalesce ? { query: { coalesce: true } } : {}) }) }),
    },
    doc: () => request<Record<string, unknown>>("GET", "/doc"),
    session: {
      list: (query: { search?: string; limit?: number; roots?: boolean; start?: number } = {}) => request<Session[]>("GET", "/session", { query }),
      create: (body: SessionCreateInput = {}) => request<Session>("POST", "/session", { body }),
      get: (id: string) => request<Session>("GET", s(id)),
      update: (id: string, body: SessionUpdateInput) => request<Session>("PATCH", s(id), { body }),
      delete: (id: string) => request<boolean>("DELETE", s(id)),
      children: (id: string) => request<Session[]>("GET", `${s(id)}/children`),
      todo: (id: string) => request<Todo[]>("GET", `${s(id)}/todo`),
      diff: (id: string, query: { messageID?: string } = {}) =>
        request<FileDiff[]>("GET", `${s(id)}/diff${query.messageID ? `?messageID=${encodeURIComponent(query.messageID)}` : ""}`),
      status: () => request<Record<string, SessionStatus>>("GET", "/session/status"),
      messages: (id: string, query: { limit?: number; before?: string } = {}) => request<MessageWithParts[]>("GET", `${s(id)}/message`, { query }),
      message: (id: string, messageID: string) => request<MessageWithParts>("GET", m(id, messageID)),
      deleteMessage: (id: string, messageID: string) => request<boolean>("DELETE", m(id, messageID)),
      /** One session's events from the event log after `after` (a seq), then as they are logged; resumes on reconnect. */
      events: (id: string, o: StreamOptions & { after?: number } = {}): AsyncIterable<BusEvent> =>
        subscribeEvents<BusEvent>({
          ...o,
          open: (signal, lastId) => t.open("GET", `${s(id)}/event`, { signal, headers: resume(lastId), ...(o.after !== undefined ? { query: { after: o.after } } : {}) }),
        }),
      updatePart: (id: string, messageID: string, part: Part) => request<Part>("PATCH", `${m(id, messageID)}/part/${seg(part.id)}`, { body: part }),
      deletePart: (id: string, messageID: string, partID: string) => request<boolean>("DELETE", `${m(id, messageID)}/part/${seg(partID)}`),
      /** Sends a prompt and resolves with the answer once the loop is done. */
      prompt: (id: string, body: PromptInput, signal?: AbortSignal) => request<MessageWithParts>("POST", `${s(id)}/message`, { body, signal }),
      /** Stores a prompt and starts the loop; resolves at once. */
      promptAsync: (id: string, body: PromptInput) => request<void>("POST", `${s(id)}/prompt_async`, { body }),
      command: (id: string, body: Omit<SessionCommandInput, "arguments"> & { arguments?: string }, signal?: AbortSignal) =>
        request<MessageWithParts>("POST", `${s(id)}/command`, { body, signal }),
      /**
       * Sends a prompt with an explicit delivery: to an idle session it runs and resolves with the
       * answer; to a busy one it is stored at once and resolves with its inbox item (202).
       */
      send: (id: string, body: PromptInput & { delivery: NonNullable<PromptInput["delivery"]> }, signal?: AbortSignal) =>
        request<MessageWithParts | InboxItem>("POST", `${s(id)}/message`, { body, signal }),
      /** Prompts waiting for delivery to the busy session (`session.inbox.updated` tells of changes). */
      inbox: (id: string) => request<InboxItem[]>("GET", `${s(id)}/inbox`),
      /** Edits a waiting prompt; ApiError 409 (InboxDeliveredError) once delivered. */
      inboxUpdate: (id: string, itemID: string, body: InboxItemUpdate) => request<InboxItem>("PATCH", `${s(id)}/inbox/${seg(itemID)}`, { body }),
      /** Withdraws a waiting prompt; ApiError 409 (InboxDeliveredError) once delivered. */
      inboxDelete: (id: string, itemID: string) => request<boolean>("DELETE", `${s(id)}/inbox/${seg(itemID)}`),
      shell: (id: string, body: SessionShellInput) => request<MessageWithParts>("POST", `${s(id)}/shell`, { body }),
      abort: (id: string) => request<boolean>("POST", `${s(id)}/abort`),
      /** Carries on a session a crashed wright left working; with `wait`, answers once it is idle (see server/routes/session.ts). */
      resume: (id: string, body: { wait?: boolean } = {}) =>
        request<{ outcome: "resumed" | "stopped" | "idle" | "running" | "busy"; error?: string; message?: MessageWithParts }>("POST", `${s(id)}/resume`, { body }),
      fork: (id: string, body: { messageID?: string } = {}) => request<Session>("POST", `${s(id)}/fork`, { body }),
      summarize: (id: string, body: SessionSummarizeInput = {}) => request<boolean>("POST", `${s(id)}/summarize`, { body }),
      revert: (id: string, body: SessionRevertInput) => request<Session>("POST", `${s(id)}/revert`, { body }),
      /** Starts MCP servers for this session only (replacing its set); resolves with each one's status. */
      mcpSet: (id: string, body: SessionMcpInput) => request<Record<string, McpStatus>>("PUT", `${s(id)}/mcp`, { body }),
      mcpClear: (id: string) => request<boolean>("DELETE", `${s(id)}/mcp`),
      /** Routes the session's file reads and/or writes through its editor, which answers `editor.file.requested` with editorReply. */
      editorSet: (id: string, body: SessionEditorInput) => request<boolean>("PUT", `${s(id)}/editor`, { body }),
      editorReply: (id: string, requestID: string, body: EditorFileReply) => request<boolean>("POST", `${s(id)}/editor/${seg(requestID)}`, { body }),
      unrevert: (id: string, query: { force?: boolean } = {}) => request<Session>("POST", `${s(id)}/unrevert${query.force ? "?force=true" : ""}`),
    },
    permission: {
      list: () => request<PermissionRequest[]>("GET", "/permission"),
      reply: (requestID: string, reply: PermissionReply, message?: string) =>
        request<boolean>("POST", `/permission/${seg(requestID)}/reply`, { body: { reply, ...(message !== undefined ? { message } : {}) } }),
      /** The legacy path: `/session/:id/permissions/:permissionID`. */
      respond: (sessionID: string, permissionID: string, response: PermissionReply, message?: string) =>
        request<boolean>("POST", `${s(sessionID)}/permissions/${seg(permissionID)}`, { body: { response, ...(message !== undefined ? { message } : {}) } }),
    },
    question: {
      list: () => request<QuestionRequest[]>("GET", "/question"),
      reply: (requestID: string, answers: string[][]) => request<boolean>("POST", `/question/${seg(requestID)}/reply`, { body: { answers } }),
      reject: (requestID: string) => request<boolean>("POST", `/question/${seg(requestID)}/reject`),
    },
    config: {
      get: () => request<Record<string, unknown>>("GET", "/config"),
      update: (body: Record<string, unknown>) => request<Record<string, unknown>>("PATCH", "/config", { body }),
      providers: () => request<ConfigProviders>("GET", "/config/providers"),
      /** One line per config key that is unknown or accepted but not acted on, naming its file. */
      warnings: () => request<string[]>("GET", "/config/warnings"),
    },
    provider: {
      list: () => request<ProviderList>("GET", "/provider"),
      /** Each provider's sign-in methods besides an API key (OpenCode's `GET /provider/auth`). */
      auth: () => request<Record<string, { type: "oauth" | "api"; label: string }[]>>("GET", "/provider/auth"),
      oauth: {
        /** Starts a subscription sign-in in the core: the page to open and what to do there. */
        authorize: (providerID: string, body: { method?: number } = {}) =>
          request<{ url: string; method: "auto" | "code"; instructions: string }>("POST", `/provider/${seg(providerID)}/oauth/authorize`, { body }),
        /** Resolves once the sign-in started by `authorize` is finished and stored. */
        callback: (providerID: string, body: { method?: number } = {}) => request<boolean>("POST", `/provider/${seg(providerID)}/oauth/callback`, { body }),
      },
    },
    auth: {
      /** Stores the provider's API key in the user's auth.json (`PUT /auth/:id`, OpenCode's body); never returned. */
      set: (providerID: string, body: { type: "api"; key: string }) => request<boolean>("PUT", `/auth/${seg(providerID)}`, { body }),
      /** Removes the provider's stored key. */
      remove: (providerID: string) => request<boolean>("DELETE", `/auth/${seg(providerID)}`),
    },
    agent: { list: () => request<AgentInfo[]>("GET", "/agent") },
    project: {
      /** Directories the server knows: where it started, then every one with sessions. */
      list: () => request<{ directory: string }[]>("GET", "/project"),
    },
    command: { list: () => request<CommandInfo[]>("GET", "/command") },
    skill: { list: () => request<SkillInfo[]>("GET", "/skill") },
    path: { get: () => request<PathInfo>("GET", "/path") },
    find: {
      text: (pattern: string, limit?: number) => request<FindMatch[]>("GET", "/find", { query: { pattern, limit } }),
      files: (query: string, o: { dirs?: boolean; type?: "file" | "directory"; limit?: number } = {}) =>
        request<string[]>("GET", "/find/file", { query: { query, dirs: o.dirs, type: o.type, limit: o.limit } }),
    },
    file: {
      list: (path = ".") => request<FileNode[]>("GET", "/file", { query: { path } }),
      read: (path: string) => request<FileContent>("GET", "/file/content", { query: { path } }),
      status: () => request<FileStatus[]>("GET", "/file/status"),
    },
    mcp: {
      /** Each configured MCP server's status; waits for servers still connecting. */
      status: () => request<Record<string, McpStatus>>("GET", "/mcp"),
      /** Resources of the connected servers, by `server:name` (OpenCode's /experimental/resource). */
      resources: () => request<Record<string, { name: string; uri: string; client: string; description?: string; mimeType?: string }>>("GET", "/experimental/resource"),
    },
    plugin: {
      /** Plugins, custom tool files and command hooks: what loaded, from where, and what failed. */
      list: () => request<PluginStatus[]>("GET", "/plugin"),
    },
    lsp: {
      /** Language servers started so far (they start on the first file of their language). */
      status: () => request<LspStatus[]>("GET", "/lsp"),
    },
    formatter: {
      /** Every formatter and whether it applies to this project. */
      status: () => request<FormatterStatus[]>("GET", "/formatter"),
    },
    trust: {
      /** Whether the project's own config applies in full, and what was held back. */
      get: () => request<TrustStatus>("GET", "/trust"),
      /** Trusts the folder as its config is now; the project reloads with it. */
      grant: () => request<TrustStatus>("POST", "/trust"),
    },
    instance: {
      /** Drops the project's App (running steps end); the next request loads its config afresh. */
      dispose: () => request<boolean>("POST", "/instance/dispose"),
    },
    debug: {
      /** Writes a V8 heap snapshot of the core on the server's machine; answers where. */
      heap: () => request<HeapSnapshotInfo>("POST", "/debug/heap"),
    },
    tool: {
      ids: () => request<string[]>("GET", "/experimental/tool/ids"),
      list: (provider: string, model: string) => request<ToolListItem[]>("GET", "/experimental/tool", { query: { provider, model } }),
    },
  }
}

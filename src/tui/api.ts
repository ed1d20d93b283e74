// The calls the TUI makes, over the sdk. Where the sdk has no typed method yet, the call goes
// through `client.request` with OpenCode's path, so switching to the typed method is one line.
import type { Client } from "../sdk"
import type { MessageWithParts, ModelRef, PartInput, PermissionReply, PermissionRequest, QuestionRequest, Session, SessionStatus } from "../protocol"

export interface AgentInfo {
  name: string
  description?: string
  mode: "primary" | "subagent" | "all"
  hidden?: boolean
  color?: string
  model?: { providerID: string; modelID: string }
}

export interface ProviderInfo {
  id: string
  name?: string
  models: Record<string, { id?: string; name?: string; limit?: { context?: number; output?: number } }>
}

export interface CommandInfo {
  name: string
  description?: string
}

const seg = encodeURIComponent

export function createApi(client: Client) {
  const r = client.request
  return {
    sessions: (query: { search?: string; limit?: number } = {}) => client.session.list({ roots: true, limit: 50, ...query }),
    session: (id: string) => client.session.get(id),
    createSession: () => client.session.create({}),
    deleteSession: (id: string) => r<boolean>("DELETE", `/session/${seg(id)}`),
    messages: (id: string, query: { limit?: number; before?: string } = {}) => client.session.messages(id, query),
    statuses: () => client.session.status() as Promise<Record<string, SessionStatus>>,
    prompt: (id: string, body: { agent?: string; model?: ModelRef; parts: PartInput[] }) => client.session.prompt(id, body),
    abort: (id: string) => client.session.abort(id),
    shell: (id: string, body: { agent: string; command: string; model?: ModelRef }) => r<MessageWithParts>("POST", `/session/${seg(id)}/shell`, { body }),
    command: (id: string, body: { command: string; arguments: string; agent?: string; model?: string }) => r<MessageWithParts>("POST", `/session/${seg(id)}/command`, { body }),
    summarize: (id: string, body: { providerID: string; modelID: string }) => r<boolean>("POST", `/session/${seg(id)}/summarize`, { body }),
    revert: (id: string, messageID: string) => r<Session>("POST", `/session/${seg(id)}/revert`, { body: { messageID } }),
    unrevert: (id: string) => r<Session>("POST", `/session/${seg(id)}/unrevert`),
    permissions: () => r<PermissionRequest[]>("GET", "/permission"),
    replyPermission: (requestID: string, reply: PermissionReply, message?: string) =>
      r<boolean>("POST", `/permission/${seg(requestID)}/reply`, { body: { reply, ...(message ? { message } : {}) } }),
    questions: () => r<QuestionRequest[]>("GET", "/question"),
    replyQuestion: (requestID: string, answers: string[][]) => r<boolean>("POST", `/question/${seg(requestID)}/reply`, { body: { answers } }),
    rejectQuestion: (requestID: string) => r<boolean>("POST", `/question/${seg(requestID)}/reject`),
    agents: () => r<AgentInfo[]>("GET", "/agent"),
    commands: () => r<CommandInfo[]>("GET", "/command"),
    providers: () => r<{ providers: ProviderInfo[]; default: Record<string, string> }>("GET", "/config/providers"),
    findFiles: (query: string) => r<string[]>("GET", "/find/file", { query: { query, limit: 10 } }),
  }
}

export type Api = ReturnType<typeof createApi>

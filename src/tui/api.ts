// The calls the TUI makes, over the sdk's typed methods, in one place so the components and
// the controller never build paths themselves.
import type { Client } from "../sdk"
import type { Delivery, ModelRef, PartInput, PermissionReply, Ruleset } from "../protocol"

export type { AgentInfo } from "../protocol"

/** One entry of GET /plugin. */
export type { PluginStatus as PluginInfo } from "../protocol"

export function createApi(client: Client) {
  return {
    sessions: (query: { search?: string; limit?: number } = {}) => client.session.list({ roots: true, limit: 50, ...query }),
    session: (id: string) => client.session.get(id),
    /** Sessions the session started (subagent tasks). */
    children: (id: string) => client.session.children(id),
    createSession: () => client.session.create({}),
    deleteSession: (id: string) => client.session.delete(id),
    /** /rename: the session's title. */
    updateSession: (id: string, body: { title?: string; permission?: Ruleset }) => client.session.update(id, body),
    /** /fork: a new session with the messages before `messageID`. */
    forkSession: (id: string, messageID?: string) => client.session.fork(id, messageID ? { messageID } : {}),
    messages: (id: string, query: { limit?: number; before?: string } = {}) => client.session.messages(id, query),
    statuses: () => client.session.status(),
    /** Starts the loop and returns at once; the answer arrives as events. */
    prompt: (id: string, body: { agent?: string; model?: ModelRef; parts: PartInput[]; delivery?: Delivery }) => client.session.promptAsync(id, body),
    /** Prompts waiting for delivery to the busy session; withdrawing one answers 409 once it was delivered. */
    inbox: (id: string) => client.session.inbox(id),
    withdraw: (id: string, itemID: string) => client.session.inboxDelete(id, itemID),
    abort: (id: string) => client.session.abort(id),
    /** Carries on the session if a crashed wright process left it working (POST /session/:id/resume); returns at once. */
    resume: (id: string) => client.session.resume(id),
    shell: (id: string, body: { agent: string; command: string; model?: ModelRef }) => client.session.shell(id, body),
    command: (id: string, body: { command: string; arguments: string; agent?: string; model?: string; delivery?: Delivery }) => client.session.command(id, body),
    summarize: (id: string, body: { providerID: string; modelID: string }) => client.session.summarize(id, body),
    revert: (id: string, messageID: string) => client.session.revert(id, { messageID }),
    unrevert: (id: string) => client.session.unrevert(id),
    diff: (id: string) => client.session.diff(id),
    permissions: () => client.permission.list(),
    replyPermission: (requestID: string, reply: PermissionReply, message?: string) => client.permission.reply(requestID, reply, message),
    questions: () => client.question.list(),
    replyQuestion: (requestID: string, answers: string[][]) => client.question.reply(requestID, answers),
    rejectQuestion: (requestID: string) => client.question.reject(requestID),
    agents: () => client.agent.list(),
    commands: () => client.command.list(),
    providers: () => client.config.providers(),
    /** Every known provider and which are connected (have a key or a config entry). */
    allProviders: () => client.provider.list(),
    /** Stores a key for the provider; the core's providers re-read it. */
    connect: (providerID: string, key: string) => client.auth.set(providerID, { type: "api", key }),
    /** Starts a subscription sign-in in the core (GitHub Copilot, ChatGPT for openai): the page and what to do there. */
    signIn: (providerID: string) => client.provider.oauth.authorize(providerID, { method: 0 }),
    /** Resolves once that sign-in is finished and stored. */
    signedIn: (providerID: string) => client.provider.oauth.callback(providerID, { method: 0 }),
    findFiles: (query: string) => client.find.files(query, { limit: 10 }),
    /** MCP resources by `server:name`, for `@server:name` mentions. */
    resources: () => client.mcp.resources(),
    trust: () => client.trust.get(),
    /** Plugins, custom tools and command hooks (GET /plugin; wright's own route). */
    plugins: () => client.plugin.list(),
    mcp: () => client.mcp.status(),
    /** Writes a V8 heap snapshot of the core (POST /debug/heap). */
    heap: () => client.debug.heap(),
    /** Records the trust and reloads the project's App with its full config. */
    grantTrust: () => client.trust.grant(),
  }
}

export type Api = ReturnType<typeof createApi>

// A typed client for wright's HTTP API, one method per route. Its `fetch` can be the
// in-process server (no socket) or the network (`wright serve`, `--attach`). Knows only
// protocol shapes, never the core.
export { createClient, type Client } from "./client"
export { ApiError, basicAuth, createTransport, type ClientOptions, type FetchFn, type Transport } from "./transport"
export type { StreamOptions } from "./api"
export type { AgentInfo, McpStatus } from "../protocol"
export { subscribeEvents, type SubscribeOptions } from "./events"
export { toMarkdown } from "./transcript"
export { addSessions, applyEvent, createSessionState, isBusy, loadMessages, type InboxItem, type SessionState } from "./session-state"

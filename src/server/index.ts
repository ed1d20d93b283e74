// The HTTP + SSE API every front end uses (run, the TUI, ACP, remote clients), speaking
// OpenCode's paths and shapes so the official SDK works against it. Routes translate HTTP
// to App calls and nothing more; auth and CORS wrap the app when it listens on a port.
export { createServer, type Server, type ServerOptions } from "./app"
export { secure, authFromEnv, isAllowedOrigin, ALLOWED_METHODS, type SecurityOptions, type FetchHandler } from "./security"
export { HEARTBEAT_MS } from "./sse"

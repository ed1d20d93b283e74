// The HTTP + SSE API every front end uses (run, the TUI, ACP, remote clients), speaking
// OpenCode's paths and shapes so the official SDK works against it.
export { createServer, type Server, type ServerOptions } from "./app"

// The HTTP + SSE API every front end uses (run, the TUI, ACP, remote clients), speaking
// OpenCode's paths and shapes so the official SDK works against it. Routes translate HTTP
// to App calls and nothing more; every TCP port goes through the guarded listener.
export { createServer, type Server, type ServerOptions } from "./app"
export { guard, listen, listenRefusal, isLoopback, ListenError, ALLOWED_METHODS, type GuardOptions, type ListenOptions, type Listening, type FetchHandler } from "./listener"
export { BODY_LIMIT, FILE_BODY_LIMIT } from "./route"
export { HEARTBEAT_MS } from "./sse"
export { advertise, checkMdnsDomain, DEFAULT_MDNS_DOMAIN, mdnsRefusal, type Advertised } from "./mdns"
export { createPairing, pairCookieName, PAIR_TTL_MS, type Device, type Pairing } from "./pairing"
export { defaultAssets, type WebOptions } from "./web"

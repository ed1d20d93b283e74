// The shapes of everything that crosses a boundary: sessions, messages, parts, the tool
// state machine, permissions, bus events, named errors and API bodies. OpenCode-compatible,
// so its SDK and clients read them unchanged. Schemas only: no behaviour, no I/O.
export * from "./error-info"
export * from "./error"
export * from "./model-ref"
export * from "./permission"
export * from "./session"
export * from "./part"
export * from "./message"
export * from "./event"
export * from "./api"
export * from "./inbox"
export * from "./debug"

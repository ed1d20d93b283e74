// A typed client for wright's HTTP API. Its `fetch` can be the in-process server (no socket)
// or the network (`wright serve`, `--attach`). Knows only protocol shapes, never the core.
export { createClient, ApiError, type Client, type ClientOptions, type FetchFn } from "./client"
export { subscribeEvents, type SubscribeOptions } from "./events"

import { createApi } from "./api"
import { createTransport, type ClientOptions } from "./transport"

/** A typed client for every route of wright's HTTP API (OpenCode's paths). */
export function createClient(opts: ClientOptions) {
  const transport = createTransport(opts)
  return { request: transport.request, ...createApi(transport) }
}

export type Client = ReturnType<typeof createClient>

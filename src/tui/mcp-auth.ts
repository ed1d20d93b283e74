import type { BusEvent } from "../protocol"
import type { Client } from "../sdk"
import type { EventSource } from "./rpc"
import type { Store } from "./store"

/**
 * Tells the user, above the UI, when a remote MCP server wants an OAuth login: the servers
 * that are `needs_auth` at launch, and any whose refresh token stops working later (the
 * `mcp.auth.required` event). Once per server until it connects again.
 */
export function watchMcpAuth(client: Client, store: Store, events: EventSource, ready: Promise<void>): () => void {
  const told = new Set<string>()
  let seq = 0
  const tell = (server: string, text = `Server ${server} requires authentication. Run: wright mcp auth ${server}`) => {
    if (told.has(server)) return
    told.add(server)
    store.print({ kind: "notice", key: `mcp-auth:${server}:${++seq}`, text, tone: "error" })
  }
  const unsubscribe = events.subscribe((e: BusEvent) => {
    if (e.type === "mcp.auth.required") tell(e.properties.server, e.properties.message)
    // Its tools changed: it connected again (or went away); a later failure is news again.
    if (e.type === "mcp.tools.changed") told.delete(e.properties.server)
  })
  void ready
    .then(() => client.mcp.status())
    .then((status) => {
      for (const [server, s] of Object.entries(status)) if (s.status === "needs_auth") tell(server)
    })
    .catch(() => {})
  return unsubscribe
}

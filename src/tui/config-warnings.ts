import type { Client } from "../sdk"
import type { Store } from "./store"

/**
 * Prints what the project's config sets that wright ignores (unknown keys, keys it accepts
 * but does not act on yet) as notices above the UI, once at launch. A server without
 * /config/warnings (an older `wright serve`) has nothing to say.
 */
export async function showConfigWarnings(client: Client, store: Store): Promise<void> {
  const warnings = await client.config.warnings().catch(() => [])
  for (const [i, text] of warnings.entries()) store.print({ kind: "notice", key: `config-warning:${i}`, text: `Warning: ${text}`, tone: "info" })
}

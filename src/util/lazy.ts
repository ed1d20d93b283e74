import { createRequire } from "node:module"

const load = createRequire(import.meta.url)

/**
 * A module loaded on first use instead of at start-up, for libraries that only some commands
 * need (YAML, HTML conversion, diffs): each one left out keeps `wright run` lighter.
 */
export function lazyModule<T>(id: string): () => T {
  let mod: T | undefined
  return () => (mod ??= load(id) as T)
}

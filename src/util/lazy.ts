import { createRequire } from "node:module"

// Made on first use, not at import: in the startup snapshot (scripts/snapshot.mjs) a module's
// top level runs while the blob is built, and this path would be the build's.
let load: NodeRequire | undefined

/**
 * A module loaded on first use instead of at start-up, for libraries that only some commands
 * need (YAML, HTML conversion, diffs): each one left out keeps `wright run` lighter.
 */
export function lazyModule<T>(id: string): () => T {
  let mod: T | undefined
  return () => (mod ??= (load ??= createRequire(import.meta.url))(id) as T)
}

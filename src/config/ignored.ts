import type { Config } from "./schema"

/**
 * OpenCode keys wright accepts, so an OpenCode config loads, but does not act on yet. Each
 * one set in a file becomes one warning naming the file. A value that asks for nothing
 * (`lsp: false`, `plugin: []`) is what wright does anyway: no warning.
 * `shell` is not here: command templates run `` !`cmd` `` with it.
 */
// Empty since wright acts on every key it accepts (lsp, formatter, snapshot, plugin,
// server.mdns and model variants were here until they were built); the next such key goes here.
const IGNORED: { key: string; asks(config: Config): boolean; why: string }[] = []

/** The warnings for one config source (`label` is its file, or the variable it came from). */
export function ignoredKeys(config: Config, label: string): string[] {
  const out = IGNORED.filter((i) => i.asks(config)).map((i) => `${label}: key "${i.key}" ignored: ${i.why}`)
  return out
}

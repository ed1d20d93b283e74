import type { Config } from "./schema"

/**
 * OpenCode keys wright accepts, so an OpenCode config loads, but does not act on yet. Each
 * one set in a file becomes one warning naming the file. A value that asks for nothing
 * (`lsp: false`, `plugin: []`, `snapshot: false`) is what wright does anyway: no warning.
 * `shell` is not here: command templates run `` !`cmd` `` with it.
 */
const IGNORED: { key: string; asks(config: Config): boolean; why: string }[] = [
  { key: "lsp", asks: (c) => asksFor(c.lsp), why: "wright starts no language servers yet" },
  { key: "formatter", asks: (c) => asksFor(c.formatter), why: "wright runs no formatters yet" },
  { key: "snapshot", asks: (c) => c.snapshot === true, why: "wright takes no snapshots yet (reverting a message does not restore files)" },
]

function asksFor(value: boolean | Record<string, unknown> | undefined): boolean {
  return value === true || (typeof value === "object" && Object.keys(value).length > 0)
}

/** The warnings for one config source (`label` is its file, or the variable it came from). */
export function ignoredKeys(config: Config, label: string): string[] {
  const out = IGNORED.filter((i) => i.asks(config)).map((i) => `${label}: key "${i.key}" ignored: ${i.why}`)
  return out
}

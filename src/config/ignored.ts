import type { Config } from "./schema"

/**
 * OpenCode keys wright accepts, so an OpenCode config loads, but does not act on yet. Each
 * one set in a file becomes one warning naming the file. A value that asks for nothing
 * (`lsp: false`, `plugin: []`) is what wright does anyway: no warning.
 * `shell` is not here: command templates run `` !`cmd` `` with it.
 */
const IGNORED: { key: string; asks(config: Config): boolean; why: string }[] = [
  { key: "lsp", asks: (c) => asksFor(c.lsp), why: "wright starts no language servers yet" },
  { key: "formatter", asks: (c) => asksFor(c.formatter), why: "wright runs no formatters yet" },
  { key: "plugin", asks: (c) => (c.plugin?.length ?? 0) > 0, why: "wright loads no plugins yet" },
  { key: "server.mdns", asks: (c) => c.server?.mdns === true || c.server?.mdnsDomain !== undefined, why: "wright does not announce itself over mDNS" },
]

function asksFor(value: boolean | Record<string, unknown> | undefined): boolean {
  return value === true || (typeof value === "object" && Object.keys(value).length > 0)
}

/** The warnings for one config source (`label` is its file, or the variable it came from). */
export function ignoredKeys(config: Config, label: string): string[] {
  const out = IGNORED.filter((i) => i.asks(config)).map((i) => `${label}: key "${i.key}" ignored: ${i.why}`)
  // Variants are recorded on messages but reach no provider: the llm layer has no variants yet.
  for (const [name, agent] of Object.entries(config.agent ?? {})) {
    if (agent.variant !== undefined) out.push(`${label}: key "agent.${name}.variant" ignored: wright does not apply model variants yet`)
  }
  for (const [name, command] of Object.entries(config.command ?? {})) {
    if (command.variant !== undefined) out.push(`${label}: key "command.${name}.variant" ignored: wright does not apply model variants yet`)
  }
  return out
}

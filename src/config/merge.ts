import type { Config } from "./schema"

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/** Objects merge key by key (keys keep their first position); anything else: the later value wins. */
export function mergeDeep<T>(base: T, over: T): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue
    out[key] = key in out ? mergeDeep(out[key], value) : value
  }
  return out as T
}

/** List entries are unique by this key; a later entry with the same key replaces the earlier one's value. */
function concatUnique<T>(a: T[] | undefined, b: T[] | undefined, key: (item: T) => string): T[] | undefined {
  if (!a) return b
  if (!b) return a
  const byKey = new Map<string, T>()
  for (const item of [...a, ...b]) byKey.set(key(item), item)
  return [...byKey.values()]
}

/** Merges a higher-precedence config over a lower one. `instructions`, `plugin` and each `hooks` event's list accumulate. */
export function mergeConfig(base: Config, over: Config): Config {
  const out = mergeDeep(base, over)
  const instructions = concatUnique(base.instructions, over.instructions, (item) => item)
  const plugin = concatUnique(base.plugin, over.plugin, (item) => (typeof item === "string" ? item : item[0]))
  if (instructions) out.instructions = instructions
  if (plugin) out.plugin = plugin
  if (base.hooks && over.hooks) {
    out.hooks = { ...base.hooks }
    for (const [event, groups] of Object.entries(over.hooks)) out.hooks[event] = [...(base.hooks[event] ?? []), ...groups]
  }
  return out
}

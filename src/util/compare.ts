// Orders names for lists people read (agents, commands) without `localeCompare`: the first
// `localeCompare` of a process builds ICU's collator, ~13 ms here, on every start that lists
// agents. Letters compare case-insensitively first, as a collator would place them; names that
// differ only in case keep a fixed order. Beyond ASCII the order is by code point.
export function compareNames(a: string, b: string): number {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  if (x !== y) return x < y ? -1 : 1
  return a < b ? -1 : a > b ? 1 : 0
}

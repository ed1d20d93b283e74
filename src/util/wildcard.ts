// Wildcard patterns as permission rules use them. `*` matches any run of characters,
// slashes included; `?` matches one character; a pattern ending in " *" also matches
// the bare command, so "git status *" covers "git status". Backslashes count as slashes
// on both sides. Matching is anchored and case-sensitive.

const compiled = new Map<string, RegExp>()

export function match(text: string, pattern: string): boolean {
  return compile(pattern).test(text.replaceAll("\\", "/"))
}

function compile(pattern: string): RegExp {
  const hit = compiled.get(pattern)
  if (hit) return hit
  const normal = pattern.replaceAll("\\", "/")
  const optionalTail = normal.endsWith(" *")
  const body = optionalTail ? normal.slice(0, -2) : normal
  let source = ""
  for (const ch of body) {
    if (ch === "*") source += ".*"
    else if (ch === "?") source += "."
    else source += ch.replace(/[.+^${}()|[\]\\/-]/g, "\\$&")
  }
  if (optionalTail) source += "( .*)?"
  const re = new RegExp(`^${source}$`, "s")
  if (compiled.size >= 4096) compiled.clear()
  compiled.set(pattern, re)
  return re
}

/** `~`, `~/x`, `$HOME` and `$HOME/x` at the start of a pattern become the home directory. */
export function expandHome(pattern: string, home: string): string {
  if (pattern === "~" || pattern === "$HOME") return home
  if (pattern.startsWith("~/")) return home + pattern.slice(1)
  if (pattern.startsWith("$HOME/")) return home + pattern.slice(5)
  return pattern
}

// Rewrites of (oldString, newString) for mistakes models make when copying text: line-number
// prefixes pasted from `read` output, JSON-style escapes written out (\n, \"), and stray blank
// lines or spaces around the snippet. Each rewrite applies to newString only where it is
// clearly the same mistake, so intentional backslashes or numbers in new code survive.

export interface Variant {
  name: string
  old: string
  new: string
}

// "12: code" (read), "  12\tcode" (cat -n), "00012| code" (older read), "    12→code".
const NUMBERED = /^[ \t]*(\d+)(?:: ?|\t|\| ?|→)/

function numberOf(line: string): number | undefined {
  const m = NUMBERED.exec(line)
  return m ? Number(m[1]) : undefined
}

function splitBody(s: string): { lines: string[]; nl: boolean } {
  const nl = s.endsWith("\n")
  return { lines: (nl ? s.slice(0, -1) : s).split("\n"), nl }
}

export function stripLineNumbers(old: string, neu: string): Variant | undefined {
  const o = splitBody(old)
  // The first line may lack its prefix when the model started copying mid-line.
  const firstMissing = numberOf(o.lines[0]) === undefined
  const numbered = firstMissing ? o.lines.slice(1) : o.lines
  if (numbered.length === 0) return undefined
  const nums = numbered.map(numberOf)
  if (nums.some((n, i) => n === undefined || n !== nums[0]! + i)) return undefined
  const strip = (line: string) => line.replace(NUMBERED, "")
  const oldLines = o.lines.map((l, i) => (i === 0 && firstMissing ? l : strip(l)))
  const n = splitBody(neu)
  const newNumbered = n.lines.every((l, i) => l === "" || numberOf(l) !== undefined || (i === 0 && firstMissing))
  const newLines = newNumbered ? n.lines.map((l) => (numberOf(l) !== undefined ? strip(l) : l)) : n.lines
  return {
    name: "line-number-prefix",
    old: oldLines.join("\n") + (o.nl ? "\n" : ""),
    new: newLines.join("\n") + (n.nl ? "\n" : ""),
  }
}

type EscapeKind = "quotes" | "all"

const QUOTE_ESCAPES: Record<string, string> = { '"': '"', "'": "'", "`": "`", "\\": "\\", $: "$" }
const ALL_ESCAPES: Record<string, string> = { ...QUOTE_ESCAPES, n: "\n", t: "\t", r: "" }

/** One left-to-right pass, so a written-out "\\n" becomes a literal backslash-n, not a newline. */
export function unescape(s: string, kind: EscapeKind): string {
  const table = kind === "all" ? ALL_ESCAPES : QUOTE_ESCAPES
  return s.replace(/\\(.)/gs, (m, c: string) => table[c] ?? m)
}

export function unescapeVariants(old: string, neu: string): Variant[] {
  const out: Variant[] = []
  for (const kind of ["quotes", "all"] as const) {
    const o = unescape(old, kind)
    if (o === old || out.some((v) => v.old === o)) continue
    // A newString with real line breaks was not serialised like an oldString without them.
    const serialised = kind === "quotes" || old.includes("\n") || !neu.includes("\n")
    out.push({ name: "escape-normalized", old: o, new: serialised ? unescape(neu, kind) : neu })
  }
  return out
}

export function trimBoundary(old: string, neu: string): Variant | undefined {
  const trimmed = old.trim()
  if (trimmed === old || trimmed === "") return undefined
  const lead = /^\s*/.exec(old)![0]
  const trail = /\s*$/.exec(old)![0]
  let n = neu
  if (n.startsWith(lead)) n = n.slice(lead.length)
  else if (lead.includes("\n")) n = n.replace(/^(?:[ \t]*\n)+/, "")
  if (n.endsWith(trail)) n = n.slice(0, n.length - trail.length)
  else if (trail.includes("\n")) n = n.replace(/(?:\n[ \t]*)+$/, "")
  return { name: "trimmed-boundary", old: trimmed, new: n }
}

/** Every rewrite that changes oldString, in the order they are tried. */
export function variants(old: string, neu: string): Variant[] {
  const out: Variant[] = []
  const numbers = stripLineNumbers(old, neu)
  if (numbers) out.push(numbers)
  out.push(...unescapeVariants(old, neu))
  const trimmed = trimBoundary(old, neu)
  if (trimmed) out.push(trimmed)
  return out.filter((v) => v.old !== old && v.old.trim() !== "")
}

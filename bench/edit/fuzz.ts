// Randomised safety check of the edit engine on real source files: pick a span of lines,
// garble oldString the ways models do (indentation, tabs, trailing spaces, line numbers,
// escapes, typographic quotes, CRLF, a stale line, the same code over other lines), insert a
// marker line, and check that every applied edit changed only the chosen lines. Refusals are
// allowed (the span may repeat); an edit outside the span is a wrong-span edit. Seeded, so
// runs are reproducible.
// Run: npx tsx bench/edit/fuzz.ts [edits] [seed]

import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { applyEdit, EditError } from "../../src/tool/edit/engine"

type Garble = (lines: string[], rnd: () => number) => string[]

const GARBLES: Record<string, Garble> = {
  exact: (l) => l,
  "flatten base": (l) => {
    const min = Math.min(...l.filter((x) => x.trim()).map((x) => /^\s*/.exec(x)![0].length))
    return l.map((x) => x.slice(Math.min(min, /^\s*/.exec(x)![0].length)))
  },
  "indent +2": (l) => l.map((x) => (x.trim() ? "  " + x : x)),
  "spaces to tabs": (l) => l.map((x) => x.replace(/^( {2})+/, (m) => "\t".repeat(m.length / 2))),
  "strip trailing": (l) => l.map((x) => x.trimEnd()),
  "add trailing": (l) => l.map((x) => x + "  "),
  "line numbers": (l, rnd) => {
    const start = 1 + Math.floor(rnd() * 500)
    return l.map((x, i) => `${start + i}: ${x}`)
  },
  "curly quotes": (l) => l.map((x) => x.replace(/"([^"\n]*)"/g, "“$1”").replace(/'/g, "’")),
  "drop first indent": (l) => [l[0].trimStart(), ...l.slice(1)],
  "stale middle": (l) => (l.length >= 4 ? l.map((x, i) => (i === 1 ? x + " // changed" : x)) : l),
}

/**
 * The same code written over other lines (a block on one line against several, statements
 * joined or split, a brace moved), with stale lines added or dropped next to it so oldString
 * has as many lines as the span and the block matchers would pair them one to one. First and
 * last lines stay intact (the anchors). Returns the lines and the index of the first rewritten
 * one; undefined when the span has nothing to rewrite.
 */
const REFLOWS: Record<string, (l: string[]) => Reflowed | undefined> = {
  "block on one line": (l) => {
    const i = inner(l, (j) => /\{$/.test(l[j].trim()) && j + 3 < l.length && isBody(l[j + 1]) && /^\}[;,)]*$/.test(l[j + 2].trim()))
    if (i === undefined) return undefined
    const ws = indentOf(l[i])
    return { at: i, old: [...l.slice(0, i), `${l[i].trimEnd()} ${l[i + 1].trim()} ${l[i + 2].trim()}`, `${ws}staleA()`, `${ws}staleB()`, ...l.slice(i + 3)] }
  },
  "block spread": (l) => {
    const i = inner(l, (j) => /\{\s*\S.*\}[;,)]*$/.test(l[j]) && !/^\s*\}/.test(l[j]) && j + 3 < l.length)
    if (i === undefined) return undefined
    const m = /^(\s*)(.*?\{)\s*(\S.*?)\s*(\}[;,)]*)$/.exec(l[i])
    if (!m || m[3].includes("}")) return undefined
    return { at: i, old: [...l.slice(0, i), `${m[1]}${m[2]}`, `${m[1]}  ${m[3]}`, `${m[1]}${m[4]}`, ...l.slice(i + 3)] }
  },
  "statements joined": (l) => {
    const i = inner(l, (j) => j + 2 < l.length && isBody(l[j]) && isBody(l[j + 1]))
    if (i === undefined) return undefined
    return { at: i, old: [...l.slice(0, i), `${l[i].trimEnd()}; ${l[i + 1].trim()}`, `${indentOf(l[i])}staleA()`, ...l.slice(i + 2)] }
  },
  "statement split": (l) => {
    const i = inner(l, (j) => j + 2 < l.length && /\S(, | = | \+ | && )\S/.test(l[j]))
    if (i === undefined) return undefined
    const m = /^(.*?\S(?:,| =| \+| &&)) (\S.*)$/.exec(l[i])!
    return { at: i, old: [...l.slice(0, i), m[1], `${indentOf(l[i])}  ${m[2]}`, ...l.slice(i + 2)] }
  },
  "brace moved": (l) => {
    const i = inner(l, (j) => j + 2 < l.length && /\S\s*\{$/.test(l[j]))
    if (i === undefined) return undefined
    return { at: i, old: [...l.slice(0, i), l[i].replace(/\s*\{$/, ""), `${indentOf(l[i])}{`, ...l.slice(i + 2)] }
  },
}

interface Reflowed {
  old: string[]
  at: number
}

const indentOf = (line: string) => /^\s*/.exec(line)![0]
/** A plain statement: no brackets opened or closed across it, nothing that reads as a block edge. */
const isBody = (line: string) => /\S/.test(line) && !/[{}]/.test(line) && !/[([]$/.test(line.trim()) && !/^[)\]]/.test(line.trim())
/** The first line after the first and before the last for which `ok` holds. */
function inner(l: string[], ok: (j: number) => boolean): number | undefined {
  for (let j = 1; j < l.length - 1; j++) if (ok(j)) return j
  return undefined
}

function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function corpus(): string[] {
  const roots = ["node_modules/zod/v4/core", "node_modules/hono/dist/cjs", "node_modules/diff/libesm", "src"]
  const files: string[] = []
  for (const root of roots) {
    if (!fs.existsSync(root)) continue
    for (const f of fs.readdirSync(root, { recursive: true }) as string[]) {
      const p = path.join(root, f)
      if (/\.(ts|js|mjs)$/.test(p) && fs.statSync(p).isFile() && fs.statSync(p).size < 60_000) files.push(p)
    }
  }
  return files.sort()
}

export interface FuzzResult {
  edits: number
  applied: number
  refused: Record<string, number>
  wrongSpan: number
  examples: string[]
  /** Edits whose oldString was reflowed (REFLOWS); each must be refused, and counts as wrong-span when applied. */
  reflowed: number
}

export function runEditFuzz(edits = 2000, seed = 1): FuzzResult {
  const rnd = rng(seed)
  const files = corpus()
  const names = Object.keys(GARBLES)
  const reflows = Object.keys(REFLOWS)
  const result: FuzzResult = { edits: 0, applied: 0, refused: {}, wrongSpan: 0, examples: [], reflowed: 0 }
  while (result.edits < edits && files.length) {
    const text = fs.readFileSync(files[Math.floor(rnd() * files.length)], "utf8").replace(/\r\n/g, "\n")
    const lines = text.split("\n")
    // One edit in five rewrites the span's layout (4 to 10 lines, so there is a middle to reflow).
    const reflow = rnd() < 0.2 ? reflows[Math.floor(rnd() * reflows.length)] : undefined
    const size = reflow ? 4 + Math.floor(rnd() * 7) : 1 + Math.floor(rnd() * 6)
    const a = Math.floor(rnd() * Math.max(1, lines.length - size))
    const span = lines.slice(a, a + size)
    if (span.every((l) => l.trim() === "")) continue
    const garble = reflow ?? names[Math.floor(rnd() * names.length)]
    const reflowed = reflow ? REFLOWS[reflow](span) : undefined
    if (reflow && !reflowed) continue
    const old = reflowed?.old ?? GARBLES[garble](span, rnd)
    const marker = `MARKER_${result.edits}`
    // A reflowed edit changes the rewritten lines and those after them, as in the stale
    // function whose loop body was replaced by the next statement; no file line is written
    // like them, so applying it anywhere pairs lines wrongly: only a refusal is right.
    const neu = reflowed
      ? old.map((x, j) => (j >= reflowed.at && j < old.length - 1 && x.trim() ? `${x} /* ${marker} */` : x))
      : [old[0], marker, ...old.slice(1)]
    if (reflowed) result.reflowed++
    const crlf = rnd() < 0.2
    const file = crlf ? text.replace(/\n/g, "\r\n") : text
    result.edits++
    let out: string
    try {
      out = applyEdit(file, old.join("\n"), neu.join("\n")).text
    } catch (e) {
      if (!(e instanceof EditError)) throw e
      result.refused[e.kind] = (result.refused[e.kind] ?? 0) + 1
      continue
    }
    result.applied++
    // A garbled oldString that still occurs verbatim elsewhere names that place, rightly.
    const exactElsewhere = file.replace(/\r\n/g, "\n").split(old.join("\n")).length === 2 && !span.join("\n").includes(old.join("\n"))
    if (exactElsewhere) continue
    if (reflowed) {
      result.wrongSpan++
      if (result.examples.length < 5) result.examples.push(`${garble} at line ${a + 1}: ${JSON.stringify(old.join("\n")).slice(0, 300)}`)
      continue
    }
    const after = out.replace(/\r\n/g, "\n").split("\n")
    // Everything before line a and after line a+size must be untouched.
    const before = lines.slice(0, a)
    const tail = lines.slice(a + size)
    const okHead = before.every((l, i) => after[i] === l)
    const okTail = tail.every((l, i) => after[after.length - tail.length + i] === l)
    const markers = after.filter((l) => l.includes(marker)).length
    if (!okHead || !okTail || markers !== 1) {
      result.wrongSpan++
      if (result.examples.length < 5) result.examples.push(`${garble} at line ${a + 1}: ${JSON.stringify(old.join("\n")).slice(0, 200)}`)
    }
  }
  return result
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = runEditFuzz(Number(process.argv[2] ?? 2000), Number(process.argv[3] ?? 1))
  for (const e of r.examples) console.log(`WRONG SPAN ${e}`)
  const refused = Object.entries(r.refused).map(([k, n]) => `${k} ${n}`).join(", ")
  console.log(`edit fuzz: ${r.edits} edits (${r.reflowed} reflowed), ${r.applied} applied, refused: ${refused || "none"}, ${r.wrongSpan} wrong-span edits`)
  if (r.wrongSpan) process.exitCode = 1
}

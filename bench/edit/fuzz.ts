// Randomised safety check of the edit engine on real source files: pick a span of lines,
// garble oldString the ways models do (indentation, tabs, trailing spaces, line numbers,
// escapes, typographic quotes, CRLF, a stale line), insert a marker line, and check that every
// applied edit changed only the chosen lines. Refusals are allowed (the span may repeat);
// an edit outside the span is a wrong-span edit. Seeded, so runs are reproducible.
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
}

export function runEditFuzz(edits = 2000, seed = 1): FuzzResult {
  const rnd = rng(seed)
  const files = corpus()
  const names = Object.keys(GARBLES)
  const result: FuzzResult = { edits: 0, applied: 0, refused: {}, wrongSpan: 0, examples: [] }
  while (result.edits < edits && files.length) {
    const text = fs.readFileSync(files[Math.floor(rnd() * files.length)], "utf8").replace(/\r\n/g, "\n")
    const lines = text.split("\n")
    const size = 1 + Math.floor(rnd() * 6)
    const a = Math.floor(rnd() * Math.max(1, lines.length - size))
    const span = lines.slice(a, a + size)
    if (span.every((l) => l.trim() === "")) continue
    const garble = names[Math.floor(rnd() * names.length)]
    const old = GARBLES[garble](span, rnd)
    const marker = `MARKER_${result.edits}`
    const neu = [old[0], marker, ...old.slice(1)]
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
  console.log(`edit fuzz: ${r.edits} edits, ${r.applied} applied, refused: ${refused || "none"}, ${r.wrongSpan} wrong-span edits`)
  if (r.wrongSpan) process.exitCode = 1
}

// Edit benchmark: realistic edits models send, each with the file expected afterwards or the
// refusal expected instead. A "wrong-span" edit is the one outcome that must never happen: an
// edit applied where a refusal was expected, or one that changed text outside the region the
// intended edit changes. Run: npx tsx bench/edit/run.ts

import { pathToFileURL } from "node:url"
import { applyEdit, EditError } from "../../src/tool/edit/engine"
import type { EditCase } from "./case"
import { cases as alignment } from "./cases/alignment"
import { cases as eol } from "./cases/eol"
import { cases as escapes } from "./cases/escapes"
import { cases as exact } from "./cases/exact"
import { cases as lineNumbers } from "./cases/line-numbers"
import { cases as mixed } from "./cases/mixed"
import { cases as partial } from "./cases/partial"
import { cases as reflow } from "./cases/reflow"
import { cases as refusals } from "./cases/refusals"
import { cases as replaceAll } from "./cases/replace-all"
import { cases as stale } from "./cases/stale"
import { cases as unicode } from "./cases/unicode"
import { cases as whitespace } from "./cases/whitespace"

export const editCases: EditCase[] = [...exact, ...whitespace, ...eol, ...escapes, ...unicode, ...lineNumbers, ...partial, ...stale, ...refusals, ...replaceAll, ...mixed, ...alignment, ...reflow]

export interface EditBenchFailure {
  name: string
  reason: string
  wrongSpan: boolean
}

export interface EditBenchResult {
  passed: number
  total: number
  wrongSpan: number
  failures: EditBenchFailure[]
  /** How many passing edits each matcher applied. */
  matchers: Record<string, number>
}

/** Length of the common prefix and common suffix of two strings (not overlapping). */
function unchangedEnds(a: string, b: string): [number, number] {
  let p = 0
  while (p < a.length && p < b.length && a[p] === b[p]) p++
  let s = 0
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++
  return [p, s]
}

/** True if `actual` changed any of `file` outside the region that `expected` changes. */
function outsideIntendedRegion(file: string, expected: string, actual: string): boolean {
  const [p, s] = unchangedEnds(file, expected)
  return !actual.startsWith(file.slice(0, p)) || !actual.endsWith(file.slice(file.length - s))
}

function check(c: EditCase): { ok: true; matcher: string } | { ok: false; reason: string; wrongSpan: boolean } {
  let result: { text: string; matcher: string }
  try {
    result = applyEdit(c.file, c.oldString, c.newString, c.replaceAll)
  } catch (e) {
    if (!(e instanceof EditError)) return { ok: false, reason: `crashed: ${(e as Error).stack}`, wrongSpan: false }
    if ("error" in c.expect && c.expect.error === e.kind) return { ok: true, matcher: `refused:${e.kind}` }
    const wanted = "error" in c.expect ? `refusal "${c.expect.error}"` : "an applied edit"
    return { ok: false, reason: `expected ${wanted}, got refusal "${e.kind}": ${e.message}`, wrongSpan: false }
  }
  if ("error" in c.expect) {
    return { ok: false, reason: `expected refusal "${c.expect.error}", but the edit applied (${result.matcher}):\n${JSON.stringify(result.text)}`, wrongSpan: true }
  }
  if (result.text === c.expect.text) return { ok: true, matcher: result.matcher }
  return {
    ok: false,
    reason: `wrong text (${result.matcher}):\n  expected ${JSON.stringify(c.expect.text)}\n  actual   ${JSON.stringify(result.text)}`,
    wrongSpan: outsideIntendedRegion(c.file, c.expect.text, result.text),
  }
}

export function runEditBench(cases: EditCase[] = editCases): EditBenchResult {
  const failures: EditBenchFailure[] = []
  const matchers: Record<string, number> = {}
  let passed = 0
  for (const c of cases) {
    const r = check(c)
    if (r.ok) {
      passed++
      matchers[r.matcher] = (matchers[r.matcher] ?? 0) + 1
    } else failures.push({ name: c.name, reason: r.reason, wrongSpan: r.wrongSpan })
  }
  return { passed, total: cases.length, wrongSpan: failures.filter((f) => f.wrongSpan).length, failures, matchers }
}

function main(): void {
  const names = new Set<string>()
  for (const c of editCases) {
    if (names.has(c.name)) throw new Error(`duplicate bench case name: ${c.name}`)
    names.add(c.name)
  }
  const r = runEditBench()
  for (const f of r.failures) console.log(`FAIL ${f.wrongSpan ? "[WRONG SPAN] " : ""}${f.name}\n  ${f.reason}\n`)
  const byMatcher = Object.entries(r.matchers)
    .sort((a, b) => b[1] - a[1])
    .map(([m, n]) => `${m} ${n}`)
    .join(", ")
  console.log(`matchers: ${byMatcher}`)
  console.log(`edit bench: ${r.passed}/${r.total} cases pass, ${r.wrongSpan} wrong-span edits`)
  if (r.passed !== r.total) process.exitCode = 1
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main()

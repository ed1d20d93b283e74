// `npm ci` on the Node 20 wright supports prints no EBADENGINE warning: every package the lock
// installs accepts Node 20.19 in its engines (20.19 is the oldest Node 20 that vite, a dev
// tool, runs on; an override in package.json pins one that would not, see "overrides").
import { readFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { ROOT } from "../lib/e2e"

type V = [number, number, number]
const cmp = (a: V, b: V) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]

/** Whether `version` is in an npm `engines` range (the forms the lock holds: ||, ^, ~, >=, <, x/* and partial versions). */
function inRange(version: V, range: string): boolean {
  return range.split("||").some((alt) => {
    const tokens = alt.replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1").trim().split(/\s+/).filter(Boolean)
    return tokens.every((t) => {
      const [, op = "", rest = ""] = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(t)!
      if (rest === "*" || rest === "x" || rest === "") return true
      const parts = rest.split(".").filter((p) => p !== "*" && p.toLowerCase() !== "x").map(Number)
      const low: V = [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0]
      // The end of a partial version ("20" is 20.x.x), of ^ and of ~.
      const next = (i: number): V => (i === 0 ? [low[0] + 1, 0, 0] : i === 1 ? [low[0], low[1] + 1, 0] : [low[0], low[1], low[2] + 1])
      const partialEnd = next(Math.min(parts.length, 3) - 1)
      if (op === ">=") return cmp(version, low) >= 0
      if (op === ">") return cmp(version, parts.length < 3 ? partialEnd : low) >= (parts.length < 3 ? 0 : 1)
      if (op === "<") return cmp(version, low) < 0
      if (op === "<=") return cmp(version, partialEnd) < 0
      if (op === "^") return cmp(version, low) >= 0 && cmp(version, next(low[0] > 0 || parts.length < 2 ? 0 : low[1] > 0 || parts.length < 3 ? 1 : 2)) < 0
      if (op === "~") return cmp(version, low) >= 0 && cmp(version, next(parts.length < 2 ? 0 : 1)) < 0
      return cmp(version, low) >= 0 && cmp(version, partialEnd) < 0
    })
  })
}

test("deps - the engines reader: the range forms the lock holds", () => {
  const v20: V = [20, 19, 0]
  for (const yes of [">=20", ">= 20", "^20.12||^22", "20.x || 22.x", "18 || 20 || >=22", "6.* || 8.* || >= 10.*", "*", "^14.17.0 || ^16.13.0 || >=18.0.0", ">=16 || 14 >=14.17", "^20.19.0 || >=22.12.0"])
    expect(inRange(v20, yes), yes).toBe(true)
  for (const no of ["^22.22.2 || ^24.15.0 || >=26.0.0", ">=22", "^20.20.0", "18.x", "<20", "~20.18"]) expect(inRange(v20, no), no).toBe(false)
})

test("deps - every package in the lock accepts Node 20 (npm ci warns about none)", () => {
  const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> }
  const refusing = Object.entries(lock.packages)
    .filter(([, p]) => p.engines && !Array.isArray(p.engines) && p.engines.node && !inRange([20, 19, 0], p.engines.node))
    .map(([name, p]) => `${name}@${p.version}`)
  expect(refusing).toEqual([])
})

// The bundle rewrites string-width (scripts/startup-plugins.mjs) so that its emoji pattern is
// made late, and only for text that may hold an emoji. The TUI lays out every line with it: a
// width off by one breaks borders and wrapping, so the bundled copy must measure as the package.
import { build } from "esbuild"
import { mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, expect, test } from "vitest"
import stringWidth from "string-width"
// @ts-expect-error: a plain .mjs build script
import { startupPlugins } from "../../scripts/startup-plugins.mjs"

let dir: string
let bundled: (s: string) => number

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "wright-string-width-"))
  await build({
    stdin: { contents: `export { default } from "string-width"\n`, resolveDir: process.cwd(), loader: "js" },
    outfile: path.join(dir, "sw.mjs"),
    bundle: true,
    format: "esm",
    platform: "node",
    plugins: startupPlugins,
    logLevel: "silent",
  })
  bundled = (await import(pathToFileURL(path.join(dir, "sw.mjs")).href)).default
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("tui - the bundled string-width measures emoji, CJK, marks and box drawing as the package does", () => {
  const samples = ["abc", "│ ─ ❯ · ✓ ✗ ⏵", "👍", "👍🏽", "❤", "❤️", "❤️‍🔥", "🇺🇸", "👨‍👩‍👧", "1️⃣", "#⃣", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "☺", "☺️", "©", "™️", "日本語", "한국어", "é", "\u001b[31mred\u001b[0m", "a\u200db"]
  for (const s of samples) expect([s, bundled(s)]).toEqual([s, stringWidth(s)])
  // Symbols, arrows, dingbats and the emoji blocks, alone and with the emoji presentation selector.
  const mismatches: string[] = []
  for (const [from, to] of [[0x2000, 0x2bff], [0x1f000, 0x1faff]] as const)
    for (let c = from; c <= to; c++)
      for (const s of [String.fromCodePoint(c), `${String.fromCodePoint(c)}\ufe0f`]) if (bundled(s) !== stringWidth(s)) mismatches.push(c.toString(16))
  expect(mismatches).toEqual([])
})

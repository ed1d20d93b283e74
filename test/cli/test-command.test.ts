// The README's test command on a machine without what some tests need: `npm test`
// (scripts/test.mjs) skips those tests, prints why, and passes. The machine is played by a
// PATH that holds node alone (this machine has chromium and tmux; the child cannot find them).
import { spawnSync } from "node:child_process"
import { symlinkSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { ROOT } from "../lib/e2e"
import { tempDir } from "../lib/tool-context"

test("npm test - without chromium and tmux their tests are skipped with the reason in the summary, and the run passes", () => {
  const bin = tempDir("wright-path-")
  symlinkSync(process.execPath, path.join(bin, "node"))
  const env: NodeJS.ProcessEnv = { HOME: process.env.HOME, PATH: bin, WRIGHT_TEST_QUICK: "1", WRIGHT_TEST_NO_BUILD: "1" }
  const r = spawnSync(process.execPath, ["scripts/test.mjs", "test/e2e/browser.test.ts", "test/e2e/tui-variant.test.ts"], { cwd: ROOT, env, encoding: "utf8", timeout: 240_000 })
  const lines = r.stdout.trim().split("\n")
  expect(lines.at(-1), r.stdout + r.stderr).toMatch(/^0 passed, 0 failed, [1-9]\d* skipped$/)
  expect(lines).toContain("skipped: browser tests (no chromium: apt-get install chromium)")
  expect(lines).toContain("skipped: terminal UI tests (no tmux: apt-get install tmux)")
  expect(r.status).toBe(0)
}, 300_000)

// The README's first command ends in `npm run demo` (scripts/demo.mjs): the built binary against
// the scripted model in a throwaway project. It broke once without any test noticing (its
// provider sat in the project's untrusted config), so it runs here as a user runs it.
import { spawnSync } from "node:child_process"
import path from "node:path"
import { expect, test } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")

test("demo - npm run demo's script fixes the failing test offline and exits 0", () => {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/demo.mjs")], { cwd: ROOT, encoding: "utf8", timeout: 120_000, env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: "C.UTF-8", NO_COLOR: "1" } })
  expect(r.stderr + r.stdout).not.toContain("No model is configured")
  expect(r.status).toBe(0)
  expect(r.stdout).toContain("Fixed the failing test.")
  expect(r.stdout).toMatch(/src\/math\.js now:\nexport function add\(a, b\) \{\n  return a \+ b\n\}/)
  expect(r.stdout).not.toContain("Installing the typescript language server")
}, 150_000)

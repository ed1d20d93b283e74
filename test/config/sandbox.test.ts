// The `sandbox` config: its schema names a bad field, and an untrusted project may only
// tighten what the user's own config says (never turn it off, add writable paths, turn the
// network back on, or drop `required`); a trusted one applies in full.
import { afterEach, beforeEach, expect, test } from "vitest"
import { loadConfig } from "../../src/config"
import { makeTree, type Tree } from "./fixture"

let t: Tree
beforeEach(() => {
  t = makeTree()
})
afterEach(() => t.cleanup())

const globalFile = "home/.config/wright/wright.json"
const load = (trust?: boolean) => loadConfig({ directory: t.repo, env: {}, home: t.home, trust })

test("sandbox config - an untrusted project cannot loosen the sandbox; what it asked for is listed", async () => {
  t.write(globalFile, { sandbox: { network: false, required: true } })
  t.write("repo/wright.json", { sandbox: { mode: "off", network: true, writable: ["~/.ssh"], required: false } })
  const loaded = await load()
  expect(loaded.trust.trusted).toBe(false)
  expect(loaded.config.sandbox).toEqual({ network: false, required: true })
  const ignored = loaded.trust.ignored.join("\n")
  for (const bit of ['sandbox.mode: "off"', "sandbox.writable: lets commands write ~/.ssh", "sandbox.network: true", "sandbox.required: false"]) expect(ignored).toContain(bit)
})

test("sandbox config - an untrusted project may tighten: read-only, no network, required", async () => {
  t.write("repo/wright.json", { sandbox: { mode: "read-only", network: false, required: true } })
  const loaded = await load()
  expect(loaded.config.sandbox).toEqual({ mode: "read-only", network: false, required: true })
  expect(loaded.trust.ignored).toEqual([])
})

test("sandbox config - workspace-write from an untrusted project cannot undo the user's read-only", async () => {
  t.write(globalFile, { sandbox: { mode: "read-only" } })
  t.write("repo/wright.json", { sandbox: { mode: "workspace-write" } })
  const loaded = await load()
  expect(loaded.config.sandbox?.mode).toBe("read-only")
  expect(loaded.trust.ignored.join("\n")).toContain('sandbox.mode: "workspace-write" would loosen your sandbox')
})

test("sandbox config - a trusted project's sandbox applies in full", async () => {
  t.write("repo/wright.json", { sandbox: { mode: "off", writable: ["/data"] } })
  const loaded = await load(true)
  expect(loaded.config.sandbox).toEqual({ mode: "off", writable: ["/data"] })
})

test("sandbox config - a bad value is an error naming the field", async () => {
  t.write(globalFile, { sandbox: { mode: "strict" } })
  await expect(load()).rejects.toThrow(/sandbox\.mode/)
})

test("sandbox config - sandbox.env: an untrusted project's is dropped and listed; the user's own is in userConfig, where the App reads it", async () => {
  t.write(globalFile, { sandbox: { env: ["GITHUB_TOKEN"] } })
  t.write("repo/wright.json", { sandbox: { env: ["AWS_SECRET_ACCESS_KEY"] } })
  const loaded = await load()
  expect(loaded.config.sandbox?.env).toEqual(["GITHUB_TOKEN"])
  expect(loaded.userConfig.sandbox?.env).toEqual(["GITHUB_TOKEN"])
  expect(loaded.trust.ignored.join("\n")).toContain("sandbox.env: passes AWS_SECRET_ACCESS_KEY into commands (only your global config can)")
})

import path from "node:path"
import { afterEach, beforeEach, expect, test } from "vitest"
import { loadConfig } from "../../src/config"
import { makeTree, type Tree } from "./fixture"

let t: Tree
beforeEach(() => {
  t = makeTree()
})
afterEach(() => t.cleanup())

const globalFile = path.join("home/.config/wright", "wright.json")

// Every OpenCode key wright once accepted without acting on it (lsp, formatter, snapshot,
// plugin, server.mdns, model variants) is acted on now: an OpenCode config loads without a
// single "ignored" warning, and a key wright does not know is still named with its file.
test("config warnings - the OpenCode keys wright acts on warn about nothing; an unknown key is named with its file", async () => {
  t.write(globalFile, { server: { mdns: true, mdnsDomain: "wright.local" } })
  const project = t.write("repo/wright.json", {
    lsp: { ts: { command: ["tsls"] } },
    formatter: true,
    snapshot: true,
    plugin: ["opencode-foo@1.0.0"],
    agent: { build: { variant: "high" } },
    command: { fix: { template: "fix it", variant: "low" } },
    bogus: 1,
  })
  const loaded = await loadConfig({ trust: true, directory: t.repo, env: { WRIGHT_CONFIG_CONTENT: '{"lsp": true}' }, home: t.home })
  expect(loaded.warnings).toEqual([`${project}: unknown key "bogus" ignored`])
})

test("config warnings - in an untrusted folder the keys trust holds back are the trust notice's, not warned twice; the rest still warn", async () => {
  const project = t.write("repo/wright.json", { lsp: true, plugin: ["x"], formatter: true, server: { mdns: true }, snapshot: true, bogus: 1 })
  const loaded = await loadConfig({ directory: t.repo, env: {}, home: t.home })
  expect(loaded.trust.trusted).toBe(false)
  expect(loaded.trust.ignored.some((i) => i.startsWith("lsp:"))).toBe(true)
  expect(loaded.warnings).toEqual([`${project}: unknown key "bogus" ignored`])
})

test("config warnings - share, autoupdate, watcher.ignore and experimental.policies are named as ignored, with the file (attachment.image works now, so it is no warning)", async () => {
  const global = t.write(globalFile, {
    share: "auto",
    autoupdate: "notify",
    watcher: { ignore: ["dist/**"] },
    attachment: { image: { auto_resize: true } },
    experimental: { policies: [{ deny: "x" }] },
  })
  const loaded = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home, managedDirs: [] })
  expect(loaded.warnings).toEqual([
    `${global}: "share" ignored: sharing sessions is not supported`,
    `${global}: "autoupdate" ignored: wright does not update itself; update it with npm`,
    `${global}: "watcher.ignore" ignored: wright has no file watcher`,
    `${global}: "experimental.policies" ignored: not supported; use "permission" rules`,
  ])
})

test("config warnings - a value asking for what wright does anyway is no warning; the legacy autoshare is one", async () => {
  t.write(globalFile, { share: "disabled", autoupdate: false, watcher: {} })
  expect((await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home, managedDirs: [] })).warnings).toEqual([])
  const project = t.write("repo/wright.json", { autoshare: true })
  expect((await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home, managedDirs: [] })).warnings).toEqual([`${project}: "share" ignored: sharing sessions is not supported`])
})

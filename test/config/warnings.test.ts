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

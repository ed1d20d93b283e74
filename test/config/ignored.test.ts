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

test("config ignored - each key wright accepts but does not act on is one warning naming its file and key", async () => {
  const global = t.write(globalFile, { plugin: ["opencode-foo"], server: { mdns: true } })
  const project = t.write("repo/wright.json", {
    lsp: { ts: { command: ["tsls"] } },
    formatter: true,
    snapshot: { max_file_size: 1024 },
    agent: { build: { variant: "high" } },
    command: { fix: { template: "fix it", variant: "low" } },
  })
  const loaded = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home })
  expect(loaded.warnings).toEqual([
    `${global}: key "plugin" ignored: wright loads no plugins yet`,
    `${global}: key "server.mdns" ignored: wright does not announce itself over mDNS`,
    `${project}: key "lsp" ignored: wright starts no language servers yet`,
    `${project}: key "formatter" ignored: wright runs no formatters yet`,
    `${project}: key "agent.build.variant" ignored: wright does not apply model variants yet`,
    `${project}: key "command.fix.variant" ignored: wright does not apply model variants yet`,
  ])
})

test("config ignored - values that ask for nothing wright does not already do, and shell (command templates use it), warn about nothing", async () => {
  t.write("repo/wright.json", { lsp: false, formatter: false, plugin: [], snapshot: false, shell: "/bin/zsh", server: { port: 4097 } })
  const loaded = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home })
  expect(loaded.warnings).toEqual([])
})

test("config ignored - the same key in two files warns once per file; WRIGHT_CONFIG_CONTENT is named by its variable", async () => {
  const global = t.write(globalFile, { lsp: true })
  const project = t.write("repo/wright.json", { lsp: true })
  const loaded = await loadConfig({ trust: true, directory: t.repo, env: { WRIGHT_CONFIG_CONTENT: '{"plugin": ["x"]}' }, home: t.home })
  expect(loaded.warnings).toEqual([
    `${global}: key "lsp" ignored: wright starts no language servers yet`,
    `${project}: key "lsp" ignored: wright starts no language servers yet`,
    `WRIGHT_CONFIG_CONTENT: key "plugin" ignored: wright loads no plugins yet`,
  ])
})

test("config ignored - in an untrusted folder the keys trust holds back are the trust notice's, not warned twice; the rest still warn", async () => {
  const project = t.write("repo/wright.json", { lsp: true, plugin: ["x"], formatter: true, server: { mdns: true }, snapshot: true, bogus: 1 })
  const loaded = await loadConfig({ directory: t.repo, env: {}, home: t.home })
  expect(loaded.trust.trusted).toBe(false)
  expect(loaded.trust.ignored.some((i) => i.startsWith("lsp:"))).toBe(true)
  expect(loaded.warnings).toEqual([
    `${project}: unknown key "bogus" ignored`,
  ])
})

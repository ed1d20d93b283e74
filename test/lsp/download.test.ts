// On-demand install of npm-based language servers: bash-language-server is not installed in
// this repository, so the first .sh edit installs it for real from the npm registry into a temp
// cache directory (once; a second session finds it there and runs no npm), and the server then
// connects. WRIGHT_DISABLE_LSP_DOWNLOAD (or OpenCode's OPENCODE_DISABLE_LSP_DOWNLOAD) stops it, and
// an unreachable registry is a notice naming the package, never a failed edit.
import { existsSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test } from "vitest"
import { createCodeIntel, type CodeIntel } from "../../src/lsp"
import { createExec, type Exec } from "../../src/process"
import { createFileService, editTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

const open: CodeIntel[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.shutdown()))
})

// PATH without this repository's node_modules/.bin (npx puts it there): only the system's programs.
const SYSTEM_PATH = (process.env.PATH ?? "").split(path.delimiter).filter((d) => !d.includes("node_modules")).join(path.delimiter)

// The machine's own certificate setup (a TLS-inspecting proxy's CA), so that npm can reach the registry.
const TLS = Object.fromEntries(["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR"].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])))

function session(cacheDir: string, extraEnv: Record<string, string> = {}) {
  const dir = tempDir("wright-lsp-dl-")
  writeFileSync(path.join(dir, "run.sh"), "#!/bin/sh\necho one\n")
  const env = { PATH: SYSTEM_PATH, HOME: process.env.HOME, ...TLS, ...extraEnv }
  const spawner = createExec({ env, killGrace: 200 })
  const started: string[] = []
  const exec: Exec = (argv, o) => (started.push(path.basename(argv[0]!)), spawner(argv, o))
  const progress: string[] = []
  const intel = createCodeIntel({ config: { lsp: { timeout: 3000 }, formatter: false } as Record<string, unknown>, exec, directory: dir, env, trusted: true, publish: () => {}, cacheDir, progress: (l) => progress.push(l) })
  open.push(intel)
  const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [intel.afterWrite] }) })
  const edit = (from: string, to: string) => editTool.execute({ filePath: path.join(dir, "run.sh"), oldString: from, newString: to }, ctx)
  return { dir, intel, edit, started, progress }
}

async function until(what: () => boolean, ms: number) {
  const deadline = Date.now() + ms
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250))
}

test("lsp download - a missing bash-language-server is installed into the cache once, with a notice, and connects; the next session reuses it", async () => {
  const cache = tempDir("wright-lsp-cache-")
  const first = session(cache)
  const out = await first.edit("one", "two")
  expect(out.output).toContain("Edit applied successfully.")
  expect(out.output).toMatch(/The bash language server was not found, so it (is being|was) installed with npm \(bash-language-server\) into wright's cache, once/)
  expect(out.output).not.toContain("did not report")
  await until(() => first.intel.status().length > 0, 240_000)
  expect(first.intel.status()).toEqual([expect.objectContaining({ id: "bash", status: "connected" })])
  const root = path.join(cache, "lsp", "npm", "bash")
  expect(existsSync(path.join(root, ".installed"))).toBe(true)
  expect(existsSync(path.join(root, "node_modules", ".bin", "bash-language-server"))).toBe(true)
  expect(first.started.filter((p) => p === "npm")).toHaveLength(1)
  expect(first.progress[0]).toBe(`Installing the bash language server (bash-language-server) with npm into ${root}…`)
  expect(first.progress[1]).toMatch(/^Installed the bash language server \(bash-language-server\) in [\d.]+ s$/)

  // Later edits in the same session say nothing more about it.
  const again = await first.edit("two", "three")
  expect(again.output).toBe("Edit applied successfully.")

  // A new session with the same cache: no npm, no notice, the cached server starts.
  const second = session(cache)
  const next = await second.edit("one", "four")
  expect(next.output).not.toContain("being installed")
  await until(() => second.intel.status().length > 0, 120_000)
  expect(second.intel.status()).toEqual([expect.objectContaining({ id: "bash", status: "connected" })])
  expect(second.started).not.toContain("npm")
  expect(second.progress).toEqual([])
}, 400_000)

test("lsp download - WRIGHT_DISABLE_LSP_DOWNLOAD=1 (or OPENCODE_DISABLE_LSP_DOWNLOAD=true) installs nothing and runs no npm", async () => {
  for (const env of [{ WRIGHT_DISABLE_LSP_DOWNLOAD: "1" }, { OPENCODE_DISABLE_LSP_DOWNLOAD: "true" }] as Record<string, string>[]) {
    const cache = tempDir("wright-lsp-cache-")
    const s = session(cache, env)
    const out = await s.edit("one", "two")
    expect(out.output).toBe("Edit applied successfully.")
    expect(s.started).toEqual([])
    expect(s.progress).toEqual([])
    expect(existsSync(path.join(cache, "lsp"))).toBe(false)
    expect(s.intel.status()).toEqual([])
  }
}, 60_000)

test("lsp download - an unreachable registry is a notice naming the package; the edit is applied and nothing is left in the cache", async () => {
  const cache = tempDir("wright-lsp-cache-")
  const s = session(cache, { npm_config_registry: "http://127.0.0.1:9/", npm_config_fetch_retries: "0" })
  const first = await s.edit("one", "two")
  await until(() => s.intel.status().length > 0, 120_000)
  expect(s.intel.status()).toEqual([expect.objectContaining({ id: "bash", status: "error", error: expect.stringMatching(/^Could not install the bash language server \(bash-language-server\) with npm: .*ECONNREFUSED.*are you offline\?$/) })])
  const second = await s.edit("two", "three")
  // The failure is told once: in the first edit when npm failed within its bound, else in the next.
  const both = `${first.output}\n${second.output}`
  expect(both.match(/\n\nCould not install the bash language server \(bash-language-server\) with npm: .*are you offline\? No diagnostics from the bash language server in this session\./g)).toHaveLength(1)
  expect(both.match(/^Edit applied successfully\./gm)).toHaveLength(2)
  expect(existsSync(path.join(cache, "lsp", "npm", "bash"))).toBe(false)
  // Given up for the session: no second npm run.
  await s.edit("three", "four")
  expect(s.started.filter((p) => p === "npm")).toHaveLength(1)
}, 180_000)

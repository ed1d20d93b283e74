// On-demand install of npm-based language servers: bash-language-server is not installed in
// this repository, so the first .sh edit installs its pinned version for real from the npm
// registry into a temp cache directory, in the background (once; a second session finds it
// there and runs no npm), and the server then connects. WRIGHT_DISABLE_LSP_DOWNLOAD (or
// OpenCode's OPENCODE_DISABLE_LSP_DOWNLOAD) stops it. An unreachable registry never holds a
// write: the failure reaches the next tool result, and is remembered so the next run runs no npm.
import { existsSync, writeFileSync } from "node:fs"
import net from "node:net"
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

function session(cacheDir: string, extraEnv: Record<string, string> = {}, name = "run.sh") {
  const dir = tempDir("wright-lsp-dl-")
  writeFileSync(path.join(dir, name), name.endsWith(".sh") ? "#!/bin/sh\necho one\n" : "export const one = 1\n")
  const env = { PATH: SYSTEM_PATH, HOME: process.env.HOME, ...TLS, ...extraEnv }
  const spawner = createExec({ env, killGrace: 200 })
  const started: string[] = []
  const exec: Exec = (argv, o) => (started.push(path.basename(argv[0]!)), spawner(argv, o))
  const progress: string[] = []
  const intel = createCodeIntel({ config: { lsp: { timeout: 3000 }, formatter: false } as Record<string, unknown>, exec, directory: dir, env, trusted: true, publish: () => {}, cacheDir, progress: (l) => progress.push(l) })
  open.push(intel)
  const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [intel.afterWrite] }) })
  const edit = (from: string, to: string) => editTool.execute({ filePath: path.join(dir, name), oldString: from, newString: to }, ctx)
  /** What the session's next tool result would carry (late reports), once there is something. */
  const late = async (ms = 120_000) => {
    const deadline = Date.now() + ms
    for (;;) {
      const notes = intel.takeLate(ctx.sessionID)
      if (notes || Date.now() > deadline) return notes
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return { dir, intel, edit, started, progress, late }
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
  expect(out.output).toContain("The bash language server was not found, so it is being installed with npm (bash-language-server@5.8.1) into wright's cache, once")
  expect(out.output).toContain("Diagnostics pending")
  await until(() => first.intel.status().length > 0, 240_000)
  expect(first.intel.status()).toEqual([expect.objectContaining({ id: "bash", status: "connected" })])
  const root = path.join(cache, "lsp", "npm", "bash-5.8.1")
  expect(existsSync(path.join(root, ".installed"))).toBe(true)
  expect(existsSync(path.join(root, "node_modules", ".bin", "bash-language-server"))).toBe(true)
  expect(first.started.filter((p) => p === "npm")).toHaveLength(1)
  expect(first.progress[0]).toBe(`Installing the bash language server (bash-language-server@5.8.1) with npm into ${root}…`)
  expect(first.progress[1]).toMatch(/^Installed the bash language server \(bash-language-server@5.8.1\) in [\d.]+ s$/)

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

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer()
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r))
  const port = (srv.address() as net.AddressInfo).port
  await new Promise((r) => srv.close(r))
  return port
}

test("lsp download - with the registry unreachable, a .ts write returns at once saying diagnostics are pending; the failure reaches the next tool result and is remembered, so the next run starts no npm", async () => {
  const cache = tempDir("wright-lsp-cache-")
  const offline = { npm_config_registry: `http://127.0.0.1:${await closedPort()}/`, npm_config_fetch_retries: "0" }
  const s = session(cache, offline, "a.ts")
  const first = await s.edit("= 1", "= 2")
  // Not held for npm or lsp.timeout: the result says the server is coming, not that it failed or timed out.
  expect(first.output).toContain("Edit applied successfully.")
  expect(first.output).toContain("The typescript language server was not found, so it is being installed with npm (typescript-language-server@5.3.0, typescript@5.9.3)")
  expect(first.output).toContain("Diagnostics pending: the typescript language server is not ready yet")
  expect(first.output).not.toMatch(/Could not install|did not report/)
  // The failure comes with the next tool result, once.
  const notes = await s.late()
  expect(notes).toMatch(/^\n\nCould not install the typescript language server \(typescript-language-server@5\.3\.0, typescript@5\.9\.3\) with npm: .*are you offline\? No diagnostics from the typescript language server in this session\.$/)
  expect(s.intel.status()).toEqual([expect.objectContaining({ id: "typescript", status: "error", error: expect.stringMatching(/ECONNREFUSED/) })])
  const root = path.join(cache, "lsp", "npm", "typescript-5.3.0-5.9.3")
  expect(existsSync(root)).toBe(false)
  expect(existsSync(`${root}.failed`)).toBe(true)
  expect((await s.edit("= 2", "= 3")).output).toBe("Edit applied successfully.")
  expect(s.started.filter((p) => p === "npm")).toHaveLength(1)
  expect(s.progress[0]).toMatch(/^Installing the typescript language server/)

  // The next run (same cache): no npm, no install progress; the remembered failure is told once, with how to retry.
  const next = session(cache, offline, "a.ts")
  const out = await next.edit("= 1", "= 2")
  expect(out.output).toMatch(/Could not install the typescript language server .* \(This failure is from \S+; wright tries again 24 h after it, or now if you delete .*typescript-5\.3\.0-5\.9\.3\.failed\.\) No diagnostics from the typescript language server in this session\./)
  expect(out.output).not.toContain("Diagnostics pending")
  expect((await next.edit("= 2", "= 3")).output).toBe("Edit applied successfully.")
  expect(next.started).not.toContain("npm")
  expect(next.progress).toEqual([])
}, 180_000)

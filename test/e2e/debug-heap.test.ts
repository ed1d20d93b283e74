// `wright debug heap` against a running `wright serve`, and /heap in the TUI (the worker's
// heap), with the built binary. Needs a build.
import { existsSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest"
import { requires } from "../lib/requires"
import { createClient } from "../../src/sdk"
import { BIN, providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"
import { heapHas, heapMeta } from "../lib/heap"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { Tmux } from "../tui/tmux"
import { startServe, stopServe, type Served } from "./serve-helpers"

// The TUI case drives wright in tmux; without tmux it is skipped, saying so.
const noTmux = requires("tmux")

vi.setConfig({ testTimeout: 180_000 })

let llm: LLMServer
let served: Served | undefined
const panes: Tmux[] = []
beforeAll(async () => {
  llm = await startLLMServer({ strict: false })
})
afterEach(async () => {
  for (const p of panes.splice(0)) p.kill()
  if (served) await stopServe(served)
  served = undefined
})
afterAll(() => llm.close())

test("debug heap - writes the running server's heap (it holds what only the server saw), --output copies it there", async () => {
  const box = sandbox()
  // The config's agent description lives in the server's App; this command never reads the config.
  writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), agent: { marker: { description: "only the server knows 51c0de" } } })
  served = await startServe(box)
  expect((await createClient({ baseUrl: served.url, directory: box.project }).agent.list()).map((a) => a.name)).toContain("marker")
  const out = path.join(box.home, "core.heapsnapshot")
  const r = await wright(["debug", "heap", "--url", served.url, "--output", out], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.stderr).toBe("")
  expect(r.code).toBe(0)
  expect(r.stdout.trim()).toBe(out)
  const { meta, nodeCount } = heapMeta(out)
  expect(meta.node_fields).toContain("self_size")
  expect(nodeCount).toBeGreaterThan(1000)
  expect(heapHas(out, "only the server knows 51c0de")).toBe(true)

  // Without --output the path on the server's machine is printed.
  const again = await wright(["debug", "heap", "--url", served.url], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(again.code).toBe(0)
  const where = again.stdout.trim()
  expect(path.dirname(where)).toBe(path.join(box.home, "state", "wright", "heap"))
  expect(existsSync(where)).toBe(true)
  expect(where).toContain(`-${served.pid}-0.heapsnapshot`)
})

test("debug heap - a bad --url or an unreachable server is a clear error", async () => {
  const box = sandbox()
  const bad = await wright(["debug", "heap", "--url", "not a url"], { cwd: box.project, env: box.env })
  expect(bad.code).not.toBe(0)
  expect(bad.stderr).toContain("--url: not a URL: not a url")
  const gone = await wright(["debug", "heap", "--url", "http://127.0.0.1:9"], { cwd: box.project, env: box.env })
  expect(gone.code).not.toBe(0)
  expect(gone.stderr).toContain("http://127.0.0.1:9: cannot reach the server")
})

test.skipIf(noTmux)("debug heap - /heap in the TUI writes the worker's heap and prints the path", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
  await pane.waitFor("tab agents")
  pane.type("/heap")
  pane.keys("Enter")
  // The line wraps: read it with the breaks taken out.
  const line = /Heap snapshot of the core \(pid \d+, thread (\d+), [\d.]+ MB\):\s*(\/\S+?\.heapsnapshot)/
  const screen = await pane.waitFor((s) => line.test(s.replace(/\n/g, "")), { timeoutMs: 120_000 })
  const [, thread, file] = line.exec(screen.replace(/\n/g, ""))!
  // Thread 0 is the main thread: the core runs in a worker.
  expect(Number(thread)).toBeGreaterThan(0)
  expect(heapMeta(file!).meta.edge_fields).toContain("to_node")
})

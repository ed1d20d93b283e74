// `wright run "hi"` loads only what its one request needs (issue 16): code that a run without
// tool calls never uses stays on disk. The built binary runs as a user runs it, with a module
// hook that records every bundle file it loads and a preload that lists Node's built-ins.
import { spawn } from "node:child_process"
import { readFileSync, readdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, ROOT, sandbox, wright, writeConfig } from "../lib/e2e"
import { tempDir } from "../lib/tool-context"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterAll(async () => {
  await server.close()
})

/** The bundle files whose text contains `marker` (esbuild keeps each module's path as a comment). */
function filesWith(marker: string): string[] {
  const dir = path.join(ROOT, "dist")
  return [...readdirSync(dir).map((f) => path.join(dir, f)), ...readdirSync(path.join(dir, "chunks")).map((f) => path.join(dir, "chunks", f))].filter(
    (f) => f.endsWith(".mjs") && readFileSync(f, "utf8").includes(marker),
  )
}

test('start - run "hi" answers without loading zod\'s locales, zod 3, the bash analysis, the port listener or webfetch\'s HTTP stack', async () => {
  const hooks = tempDir("wright-start-hooks-")
  const loadedLog = path.join(hooks, "loaded.txt")
  const builtinLog = path.join(hooks, "builtins.txt")
  writeFileSync(path.join(hooks, "hooks.mjs"), `import { appendFileSync } from "node:fs"\nlet out\nexport function initialize(data) { out = data }\nexport async function load(url, context, next) { if (url.startsWith("file:")) appendFileSync(out, url + "\\n"); return next(url, context) }\n`)
  writeFileSync(path.join(hooks, "register.mjs"), `import { register } from "node:module"\nregister(${JSON.stringify(pathToFileURL(path.join(hooks, "hooks.mjs")).href)}, { data: ${JSON.stringify(loadedLog)} })\n`)
  writeFileSync(
    path.join(hooks, "builtins.cjs"),
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(builtinLog)}, process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)).join("\\n")))\n`,
  )
  writeFileSync(loadedLog, "")
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  server.script(text("Hello from the model"))
  // The ESM build (what the TUI and a run without a fitting snapshot load): a run from the
  // startup snapshot reads no bundle file at all.
  const env = { ...box.env, WRIGHT_NO_SNAPSHOT: "1", NODE_OPTIONS: `--import=${pathToFileURL(path.join(hooks, "register.mjs")).href} --require=${path.join(hooks, "builtins.cjs")}` }
  const r = await wright(["run", "hi"], { cwd: box.project, env })
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toContain("Hello from the model")

  const loaded = new Set(readFileSync(loadedLog, "utf8").split("\n").filter(Boolean).map((u) => new URL(u).pathname))
  // The recorder works: the entry and the run command's module were seen.
  expect([...loaded].some((f) => f.endsWith("/dist/wright.mjs"))).toBe(true)
  const runChunks = filesWith("// src/cli/run/execute.ts")
  expect(runChunks.some((f) => loaded.has(f))).toBe(true)

  // Whatever holds these, it is not read for a run without tool calls (or not bundled at all).
  for (const marker of ["zod/v4/locales/de.js", "zod/v3/types.js", "// src/permission/bash-analyze.ts", "@hono/node-server/dist", "node_modules/diff/libesm"]) {
    expect(filesWith(marker).filter((f) => loaded.has(f)), marker).toEqual([])
  }
  // zod's English messages are still there (zod configures them at import).
  expect(filesWith("zod/v4/locales/en.js").some((f) => loaded.has(f))).toBe(true)

  const builtins = new Set(readFileSync(builtinLog, "utf8").split("\n"))
  expect(builtins.has("child_process"), "the recorder works").toBe(true)
  // (Node's fetch itself loads http2, tls and zlib, the floor script too.)
  for (const mod of ["https", "dns", "readline"]) expect(builtins.has(mod), mod).toBe(false)
}, 120_000)

// V8's optimising wasm tier recompiled the main function of Node's HTTP parser in the background
// (100-250 ms of a core, ~25 MB), and the finished run's process.exit waited for it.
test('start - run "hi" compiles Node\'s HTTP parser with the baseline wasm compiler only', async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  server.script(text("Hello from the model"))
  const child = spawn(process.execPath, ["--trace-wasm-compilation-times", BIN, "run", "hi"], { cwd: box.project, env: box.env, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d) => (stdout += d))
  child.stderr.on("data", (d) => (stderr += d))
  const code = await new Promise((resolve) => child.on("close", resolve))
  expect(code, stderr).toBe(0)
  expect(stdout).toContain("Hello from the model")
  // The trace works: the parser's functions were compiled, and said so.
  expect(stdout + stderr).toMatch(/Compiled function .* using Liftoff/)
  expect((stdout + stderr).match(/Compiled function .* using TurboFan.*/g) ?? []).toEqual([])
}, 120_000)

// `wright run` from the startup snapshot (bin/wright + dist/snapshot/, scripts/snapshot.mjs):
// it answers with the run's own environment, directory, arguments and terminal, not the
// build's; and a blob that does not fit this installation is passed over for the ESM build,
// which still answers.
import { spawn, spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { LAUNCHER, providerConfig, ROOT, sandbox, wright, writeConfig, type Sandbox } from "../lib/e2e"
import { tempDir } from "../lib/tool-context"

let server: LLMServer
beforeAll(async () => {
  server = await startLLMServer()
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => server.reset())

/** The text of the last user message the model received (OpenAI Chat wire). */
function lastUserText(): string {
  const messages: { role: string; content: unknown }[] = server.requests.at(-1)?.body?.messages ?? []
  const content = messages.filter((m) => m.role === "user").at(-1)?.content
  if (typeof content === "string") return content
  return Array.isArray(content) ? content.map((c: { text?: string }) => c.text ?? "").join("") : ""
}

const startup = (stderr: string) => /service=core wright started .* startup=(\w+)$/m.exec(stderr)?.[1]

function project(): Sandbox {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  return box
}

/** A copy of the installation (bin, dist, package.json; node_modules linked) whose snapshot a test may spoil. */
function installation(): { launcher: string; snapshot: string } {
  const dir = tempDir("wright-install-")
  cpSync(path.join(ROOT, "bin"), path.join(dir, "bin"), { recursive: true })
  cpSync(path.join(ROOT, "dist"), path.join(dir, "dist"), { recursive: true })
  cpSync(path.join(ROOT, "package.json"), path.join(dir, "package.json"))
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"))
  return { launcher: path.join(dir, "bin/wright"), snapshot: path.join(dir, "dist/snapshot") }
}

/** Runs a launcher to completion, as wright(…) does. */
function launch(launcher: string, args: string[], box: Sandbox): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(launcher, args, { cwd: box.project, env: { ...box.env, WRIGHT_NODE: process.execPath }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })
}

test("start snapshot - the build leaves a snapshot that `run` starts from, with the run's arguments, directory and environment", async () => {
  expect(existsSync(path.join(ROOT, "dist/snapshot/stamp"))).toBe(true)
  const box = project()
  const db = path.join(box.home, "elsewhere", "mine.db")
  mkdirSync(path.dirname(db))
  server.script(text("Hello from the snapshot"))
  const sub = path.join(box.project, "sub")
  mkdirSync(sub)
  // From a subfolder: the project's config is found from the run's cwd, upwards.
  const r = await wright(["run", "--print-logs", "what is in", "this folder"], { cwd: sub, env: { ...box.env, WRIGHT_DB: db } })
  expect(r.code, r.stderr).toBe(0)
  expect(startup(r.stderr)).toBe("snapshot")
  expect(r.stdout).toContain("Hello from the snapshot")
  expect(lastUserText()).toContain("what is in this folder")
  expect(r.stderr).toMatch(new RegExp(`wright started .*directory=${sub.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} `))
  // WRIGHT_DB as this run set it.
  expect(existsSync(db)).toBe(true)
})

test("start snapshot - colours follow the run's terminal and NO_COLOR, not the build's", async () => {
  const box = project()
  const { NO_COLOR: _, ...env } = box.env
  const inTerminal = async (extra: NodeJS.ProcessEnv) => {
    server.script(text("Hi there"))
    // script(1) gives the run a pseudo-terminal and copies what it prints, escapes included.
    return new Promise<string>((resolve, reject) => {
      const child = spawn("script", ["-qec", `'${LAUNCHER}' run --print-logs hi`, "/dev/null"], { cwd: box.project, env: { ...env, ...extra, WRIGHT_NODE: process.execPath }, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      child.stdout.on("data", (d) => (out += d))
      child.stderr.on("data", (d) => (out += d))
      child.on("error", reject)
      child.on("close", () => resolve(out))
    })
  }
  const colored = await inTerminal({})
  expect(colored).toContain("Hi there")
  expect(startup(colored.replace(/\r/g, ""))).toBe("snapshot")
  expect(colored).toContain("\x1b[36m>\x1b[0m")
  const plain = await inTerminal({ NO_COLOR: "1" })
  expect(plain).toContain("Hi there")
  expect(plain).not.toContain("\x1b[36m")
})

test("start snapshot - a moved installation still starts from its snapshot", async () => {
  const { launcher } = installation()
  server.script(text("Moved and fine"))
  const r = await launch(launcher, ["run", "--print-logs", "hi"], project())
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toContain("Moved and fine")
  expect(startup(r.stderr)).toBe("snapshot")
})

test("start snapshot - a truncated blob, one older than the Node binary, or one another Node built: the run answers from the ESM build", async () => {
  const spoil: Record<string, (snapshot: string) => void> = {
    truncated: (s) => truncateSync(path.join(s, "run.blob"), 1_000_000),
    "older than node": (s) => utimesSync(path.join(s, "run.blob"), new Date("2001-01-01"), new Date("2001-01-01")),
    "another node": (s) => writeFileSync(path.join(s, "stamp"), readFileSync(path.join(s, "stamp"), "utf8").replace(/^.*\n/, "/opt/other/bin/node\n")),
    "no stamp": (s) => writeFileSync(path.join(s, "stamp"), ""),
  }
  for (const [name, how] of Object.entries(spoil)) {
    const { launcher, snapshot } = installation()
    how(snapshot)
    server.script(text(`Still here (${name})`))
    const r = await launch(launcher, ["run", "--print-logs", "hi"], project())
    expect(r.code, `${name}: ${r.stderr}`).toBe(0)
    expect(r.stdout).toContain(`Still here (${name})`)
    expect(startup(r.stderr), name).toBe("esm")
  }
})

test("start snapshot - the run fetches with the undici evaluated in the blob: Node's own fetch, node:http, node:http2 and V8's optimising wasm tier stay unloaded", async () => {
  const hooks = tempDir("wright-snapshot-probe-")
  const builtinLog = path.join(hooks, "builtins.txt")
  // After deserialisation (a --require runs then): trace wasm compiles, record Node's built-ins at exit.
  writeFileSync(
    path.join(hooks, "probe.cjs"),
    `require("node:v8").setFlagsFromString("--trace-wasm-compilation-times")\nprocess.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(builtinLog)}, process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)).join("\\n")))\n`,
  )
  const box = project()
  const runWith = async (extra: NodeJS.ProcessEnv) => {
    server.script(text("Fetched from the blob"))
    const r = await wright(["run", "--print-logs", "hi"], { cwd: box.project, env: { ...box.env, ...extra, NODE_OPTIONS: `--require=${path.join(hooks, "probe.cjs")}` } })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("Fetched from the blob")
    return { r, builtins: new Set(readFileSync(builtinLog, "utf8").split("\n")) }
  }
  // The recorder works: the ESM build's run loads Node's fetch, and node:http2 with it.
  const esm = await runWith({ WRIGHT_NO_SNAPSHOT: "1" })
  expect(startup(esm.r.stderr)).toBe("esm")
  expect(esm.builtins.has("internal/deps/undici/undici")).toBe(true)
  expect(esm.builtins.has("http2")).toBe(true)
  expect(esm.builtins.has("http")).toBe(true)

  const snap = await runWith({})
  expect(startup(snap.r.stderr)).toBe("snapshot")
  expect(snap.builtins.has("internal/deps/undici/undici")).toBe(false)
  expect(snap.builtins.has("http2")).toBe(false)
  expect(snap.builtins.has("http")).toBe(false)
  // The HTTP parser held back while the blob was built was compiled at start, baseline only.
  const trace = snap.r.stdout + snap.r.stderr
  expect(trace).toMatch(/Compiled function .* using Liftoff/)
  expect(trace.match(/Compiled function .* using TurboFan.*/g) ?? []).toEqual([])
})

test("start snapshot - the HTTP/2 header names written into undici's client are node:http2's own", async () => {
  // @ts-expect-error: a plain .mjs build script
  const { HTTP2_HEADERS }: { HTTP2_HEADERS: Record<string, string> } = await import("../../scripts/snapshot.mjs")
  const { constants } = await import("node:http2")
  for (const [name, value] of Object.entries(HTTP2_HEADERS)) expect(constants[name as keyof typeof constants], name).toBe(value)
  expect(Object.keys(HTTP2_HEADERS).length).toBeGreaterThan(0)
})

test("start snapshot - undici's header size limit in the blob is node:http's own, with --max-http-header-size given or not", async () => {
  // @ts-expect-error: a plain .mjs build script
  const { maxHeaderSize }: { maxHeaderSize: (execArgv: string[], nodeOptions?: string) => number } = await import("../../scripts/snapshot.mjs")
  const cases: Array<[string[], string | undefined]> = [
    [[], undefined],
    [["--max-http-header-size=32768"], undefined],
    [["--max-http-header-size", "4096"], undefined],
    [["--max_http_header_size=9000"], undefined],
    [[], "--max-http-header-size=65536 --no-warnings"],
    [["--max-http-header-size=20000"], "--max-http-header-size=65536"],
  ]
  for (const [execArgv, nodeOptions] of cases) {
    const env = { ...process.env, NODE_OPTIONS: nodeOptions ?? "" }
    const r = spawnSync(process.execPath, [...execArgv, "-p", "require('node:http').maxHeaderSize"], { env, encoding: "utf8" })
    expect(r.status, r.stderr).toBe(0)
    expect(maxHeaderSize(execArgv, nodeOptions), `${execArgv.join(" ")} | ${nodeOptions}`).toBe(Number(r.stdout.trim()))
  }
})

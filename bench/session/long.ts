// A long session: 10,000 messages (a question, a tool step with ~6 KB of output, an answer;
// about 20 MB of tool output) written straight into the sandbox's SQLite through the storage
// layer, then, on the built binary:
// - `wright run -c "…"` to the first request: the model server notes when the request's headers
//   arrive (before its body is read, so the 20 MB upload is not counted as wright's start);
//   against the same with a 20-message session, interleaved; target ≤ 1 s;
// - its peak RSS (/usr/bin/time) against 2.5× the database's size on disk + `run "hi"`'s
//   peak RSS in a fresh sandbox (the hello baseline);
// - `wright -c` in a pseudo-terminal to prompt-ready with the session's last answer drawn and
//   the core answering (the status line's "tab agents"), against the 20-message session;
//   target ≤ 1 s.
// The start of the next step (10,000 vs 20 messages, in-process) is bench/session/step.ts.
// Run: node scripts/build.mjs && npx tsx bench/session/long.ts
import { spawn, type ChildProcess } from "node:child_process"
import { statSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
// @ts-expect-error: a plain .mjs helper shared with the foundation bench
import { HAVE_TIME, measure, median, providerConfig, sandbox } from "../foundation/measure.mjs"
import { databasePath, openStore } from "../../src/storage"
import { Id } from "../../src/util"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const BIN = path.join(ROOT, "bin/wright.cjs")
export const LONG = 10_000
export const SHORT = 20
const OUTPUT_BYTES = 6_000
const RUNS = 5

interface Box {
  home: string
  project: string
  env: Record<string, string>
  dbPath: string
  remove(): void
}

/** Writes a session of `count` messages into the box's database; returns its size on disk (bytes, with the WAL). */
export function seedLongSession(box: { project: string; env: NodeJS.ProcessEnv }, count: number): number {
  const store = openStore(databasePath(box.env))
  const sessionID = Id.descending("ses")
  const t0 = Date.now() - count * 1000
  store.sessions.put({ id: sessionID, slug: "long", projectID: "global", directory: box.project, title: "Long session", version: "0", time: { created: t0, updated: Date.now() } })
  const line = (i: number, k: number) => `${String(k + 1).padStart(5)}: export function step${i}_${k}(input: number) { return input * ${k} } // module ${i}\n`
  let lastUser = ""
  for (let i = 0; i < count; i++) {
    const at = t0 + i * 100
    const id = Id.ascending("msg", at)
    if (i % 3 === 0) {
      lastUser = id
      store.messages.put({ id, sessionID, role: "user", time: { created: at }, agent: "build", model: { providerID: "fake", modelID: "chat-model" } })
      store.parts.put({ id: Id.ascending("prt", at), sessionID, messageID: id, type: "text", text: `Question ${i}: look at src/m${i}.ts and fix the bug in it.` })
      continue
    }
    const tool = i % 3 === 1
    store.messages.put({
      id,
      sessionID,
      role: "assistant",
      parentID: lastUser,
      time: { created: at, completed: at + 50 },
      modelID: "chat-model",
      providerID: "fake",
      mode: "build",
      agent: "build",
      path: { cwd: box.project, root: box.project },
      cost: 0,
      tokens: { input: 1000, output: 100, reasoning: 0, cache: { read: 0, write: 0 } },
      finish: tool ? "tool-calls" : "stop",
    })
    if (tool) {
      let output = ""
      for (let k = 0; output.length < OUTPUT_BYTES; k++) output += line(i, k)
      store.parts.put({
        id: Id.ascending("prt", at),
        sessionID,
        messageID: id,
        type: "tool",
        callID: `call_${i}`,
        tool: "read",
        state: { status: "completed", input: { filePath: `src/m${i}.ts` }, output, title: `src/m${i}.ts`, metadata: {}, time: { start: at, end: at + 5 } },
      })
    } else store.parts.put({ id: Id.ascending("prt", at), sessionID, messageID: id, type: "text", text: `Fixed module ${i}: the off-by-one in the loop. Answer ${i}.`, time: { start: at, end: at + 40 } })
  }
  store.close()
  const file = databasePath(box.env)
  const size = (f: string) => {
    try {
      return statSync(f).size
    } catch {
      return 0
    }
  }
  return size(file) + size(`${file}-wal`)
}

/** An OpenAI Chat server that notes when each request's headers arrive and answers "ok" at once. */
async function firstRequestServer() {
  const arrivals: number[] = []
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
  const answer =
    frame({ id: "c", created: 1, model: "chat-model", choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }] }) +
    frame({ id: "c", created: 1, model: "chat-model", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 1 } }) +
    "data: [DONE]\n\n"
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    arrivals.push(performance.now())
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.end(answer)
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, arrivals, close: () => new Promise<void>((r) => server.close(() => r())) }
}

interface RunSample {
  firstRequestMs: number
  wallMs: number
  rssMB?: number
}

async function runContinue(box: Box, llm: { arrivals: number[] }): Promise<RunSample> {
  llm.arrivals.length = 0
  const start = performance.now()
  const r = await measure([process.execPath, BIN, "run", "-c", "and one more question"], { cwd: box.project, env: box.env, rss: true, timeoutMs: 120_000 })
  if (r.code !== 0 || !r.stdout.includes("ok")) throw new Error(`run -c: exit ${r.code}\n${r.stdout.slice(-1000)}\n${r.stderr.slice(-2000)}`)
  if (llm.arrivals.length === 0) throw new Error("run -c: no request reached the model")
  return { firstRequestMs: llm.arrivals[0]! - start, wallMs: r.ms, rssMB: r.rssMB }
}

/** `wright -c` in a 120×40 pty until the last answer is drawn and the core has answered. */
async function tuiReady(box: Box, lastText: string): Promise<number> {
  const start = performance.now()
  const child: ChildProcess = spawn("script", ["-qfec", `stty rows 40 cols 120; exec ${process.execPath} ${BIN} -c`, "/dev/null"], {
    cwd: box.project,
    env: { ...box.env, TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "pipe"],
  })
  let out = ""
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`wright -c: not ready in 60 s; output tail: ${JSON.stringify(out.slice(-400))}`)), 60_000)
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString("utf8")
        if (out.includes("tab agents") && out.includes(lastText)) {
          clearTimeout(timer)
          resolve(performance.now() - start)
        }
      })
    })
  } finally {
    child.stdin!.write("\x04")
    const kill = setTimeout(() => child.kill("SIGKILL"), 8000)
    if (child.exitCode === null) await new Promise((r) => child.once("exit", r))
    clearTimeout(kill)
  }
}

export interface LongSessionBench {
  messages: number
  dbMB: number
  runContinue: { longMs: number; shortMs: number; ratio: number; wallLongMs: number; wallShortMs: number }
  rss: { longMB?: number; helloMB?: number; boundMB?: number; measured: boolean }
  tui: { longMs: number; shortMs: number; ratio: number }
}

export async function runLongSessionBench(): Promise<LongSessionBench> {
  const llm = await firstRequestServer()
  const long = sandbox() as Box
  const short = sandbox() as Box
  const hello = sandbox() as Box
  try {
    for (const box of [long, short, hello]) writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(llm.url)))
    const onDisk = seedLongSession(long, LONG)
    seedLongSession(short, SHORT)
    const helloRun = () => measure([process.execPath, BIN, "run", "hi"], { cwd: hello.project, env: hello.env, rss: true })

    // Warm-up: the first run of each migrates nothing but fills the OS cache.
    await runContinue(long, llm)
    await runContinue(short, llm)
    await helloRun()
    const longRuns: RunSample[] = []
    const shortRuns: RunSample[] = []
    const helloRss: number[] = []
    const tuiLong: number[] = []
    const tuiShort: number[] = []
    for (let i = 0; i < RUNS; i++) {
      // Each run -c adds a turn: the long session stays at ~10,000 messages (+2 per run).
      const order = i % 2 === 0 ? [long, short] : [short, long]
      for (const box of order) (box === long ? longRuns : shortRuns).push(await runContinue(box, llm))
      const h = await helloRun()
      if (h.rssMB !== undefined) helloRss.push(h.rssMB)
    }
    // By now both sessions end with the question every `run -c` asked: drawn means loaded.
    for (let i = 0; i < 3; i++) {
      tuiLong.push(await tuiReady(long, "and one more question"))
      tuiShort.push(await tuiReady(short, "and one more question"))
    }
    const longMs = median(longRuns.map((r) => r.firstRequestMs))
    const shortMs = median(shortRuns.map((r) => r.firstRequestMs))
    const longMB = HAVE_TIME ? Math.max(...longRuns.map((r) => r.rssMB!)) : undefined
    const helloMB = HAVE_TIME ? median(helloRss) : undefined
    return {
      messages: LONG,
      dbMB: onDisk / 1024 / 1024,
      runContinue: { longMs, shortMs, ratio: longMs / shortMs, wallLongMs: median(longRuns.map((r) => r.wallMs)), wallShortMs: median(shortRuns.map((r) => r.wallMs)) },
      rss: { longMB, helloMB, boundMB: helloMB === undefined ? undefined : 2.5 * (onDisk / 1024 / 1024) + helloMB, measured: HAVE_TIME },
      tui: { longMs: median(tuiLong), shortMs: median(tuiShort), ratio: median(tuiLong) / median(tuiShort) },
    }
  } finally {
    await llm.close()
    for (const box of [long, short, hello]) box.remove()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runLongSessionBench(), null, 2))
}

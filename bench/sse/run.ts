// 20 SSE clients on one busy session, over real TCP: the server (App + SQLite + HTTP on
// 127.0.0.1) streams one answer of many text deltas; every client must receive every event
// of that session, in the same order, and the deltas must rebuild the answer. Reports the
// events each client got and the events per second the server delivered (all clients).
// Run: npx tsx bench/sse/run.ts; with --log: the event log on vs off, interleaved
// (runEventLogBench), on the 20,000-delta answer (WRIGHT_BENCH_ROUNDS=n rounds of each): 1 and 20
// clients in the server's process, then 20 in a process of their own (clients.ts), as a TUI or a
// browser is.
import { serve } from "@hono/node-server"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { register } from "node:module"
import type { AddressInfo } from "node:net"
import os from "node:os"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import v8 from "node:v8"
import vm from "node:vm"
import { startLLMServer } from "../../test/lib/llm-server"
import { answerChunks, now, readStream, verdict } from "./reader"

export const CLIENTS = 20
export const DELTAS = 5_000

export interface SseBench {
  clients: number
  /** Events of the session each client received (from the prompt to session.idle). */
  events: number
  /** Event deliveries per second across all clients, prompt sent → last client saw idle. */
  eventsPerSecond: number
  /** Every client got the same events in the same order, and the deltas rebuild the answer. */
  inOrder: boolean
  seconds: number
  /** CPU time of this process (server, clients and the scripted model alike), prompt sent → last idle. */
  cpuSeconds: number
}

let hooked = false

// A full collection before each measured stream: otherwise the previous run's garbage (a whole
// App and its 20,000-delta answer) is collected at some random point of the next run, and
// which run pays for it decides more of the on/off difference than the event log does.
v8.setFlagsFromString("--expose-gc")
const collect = vm.runInNewContext("gc") as () => void

type Clients = { ready: Promise<void>; done: Promise<ReturnType<typeof verdict>> }

/** The clients in this process: their reading and parsing counts against the server's time. */
function inProcess(url: string, sessionID: string, n: number, deltas: number, signal: AbortSignal): Clients {
  let connected = 0
  let allConnected!: () => void
  const ready = new Promise<void>((r) => (allConnected = r))
  const readers = Array.from({ length: n }, () => readStream(url, () => sessionID, () => ++connected === n && allConnected(), signal))
  return { ready, done: Promise.all(readers).then((results) => verdict(results, deltas)) }
}

/** The clients in a process of their own (clients.ts), as a TUI or a browser is. */
function clientProcess(base: string, sessionID: string, n: number, deltas: number): Clients {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./clients.ts", import.meta.url)), `${base}/event`, sessionID, String(n), String(deltas)], { stdio: ["ignore", "pipe", "inherit"] })
  const lines = createInterface({ input: child.stdout! })
  let ready!: () => void
  let fail!: (e: Error) => void
  const readyP = new Promise<void>((r, j) => ((ready = r), (fail = j)))
  const done = new Promise<ReturnType<typeof verdict>>((resolve, reject) => {
    lines.on("line", (line) => (line === "connected" ? ready() : resolve(JSON.parse(line))))
    child.once("close", (code) => {
      const e = new Error(`the clients' process exited ${code}`)
      fail(e)
      reject(e)
    })
  })
  done.catch(() => {})
  return { ready: readyP, done }
}

export async function runSseBench(opts: { clients?: number; deltas?: number; eventLog?: boolean; clientProcess?: boolean } = {}): Promise<SseBench> {
  const CLIENTS_N = opts.clients ?? CLIENTS
  const DELTAS_N = opts.deltas ?? DELTAS
  if (!hooked) {
    register("../grep/txt-loader.mjs", import.meta.url)
    hooked = true
  }
  const { createApp } = await import("../../src/session")
  const { openStore } = await import("../../src/storage")
  const { createServer } = await import("../../src/server")
  const { createClient } = await import("../../src/sdk")

  const chunks = answerChunks(DELTAS_N)
  const llm = await startLLMServer({ strict: false, fallback: () => ({ text: chunks }) })
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "wright-bench-sse-")))
  const project = path.join(home, "project")
  mkdirSync(project)
  const store = openStore(path.join(home, "wright.db"), { events: { enabled: opts.eventLog ?? true } })
  const app = await createApp({
    directory: project,
    store,
    env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), XDG_DATA_HOME: path.join(home, "data") },
    home,
    version: "bench",
    overrides: {
      model: "fake/chat-model",
      small_model: "fake/chat-model",
      provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${llm.url}/v1`, apiKey: "bench" }, models: { "chat-model": { limit: { context: 200_000, output: 8_000 } } } } },
    },
  })
  const server = createServer({ directory: project, getApp: async () => app, version: "bench" })
  const http = serve({ fetch: server.fetch, port: 0, hostname: "127.0.0.1" })
  await new Promise<void>((r) => http.once("listening", () => r()))
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  const client = createClient({ baseUrl: base, directory: project })

  try {
    const session = await client.session.create({ title: "bench" })
    const controller = new AbortController()
    const clients = opts.clientProcess ? clientProcess(base, session.id, CLIENTS_N, DELTAS_N) : inProcess(`${base}/event`, session.id, CLIENTS_N, DELTAS_N, controller.signal)
    await clients.ready
    collect()
    const start = now()
    const cpu = process.cpuUsage()
    await client.session.prompt(session.id, { parts: [{ type: "text", text: "stream a long answer" }] })
    const r = await clients.done
    controller.abort()
    const seconds = (r.endAt - start) / 1000
    const used = process.cpuUsage(cpu)
    const cpuSeconds = Number(((used.user + used.system) / 1e6).toFixed(3))
    return { clients: CLIENTS_N, events: r.events, eventsPerSecond: Math.round(r.total / seconds), inOrder: r.inOrder, seconds: Number(seconds.toFixed(3)), cpuSeconds }
  } finally {
    server.dispose()
    ;(http as { closeAllConnections?: () => void }).closeAllConnections?.()
    http.close()
    await app.dispose()
    store.close()
    await llm.close()
    rmSync(home, { recursive: true, force: true })
  }
}

/**
 * The event log's cost: the same 20,000-delta answer with the log on and off, interleaved
 * (off, on, off, on…) so the machine's slow spells hit both; medians of the wall time.
 */
export async function runEventLogBench(opts: { rounds?: number; clients?: number; deltas?: number; clientProcess?: boolean } = {}) {
  const rounds = opts.rounds ?? 7
  const clients = opts.clients ?? 1
  const deltas = opts.deltas ?? 20_000
  const on: number[] = []
  const off: number[] = []
  const cpuOn: number[] = []
  const cpuOff: number[] = []
  let inOrder = true
  for (let i = 0; i < rounds; i++) {
    for (const log of i % 2 ? [true, false] : [false, true]) {
      const r = await runSseBench({ clients, deltas, eventLog: log, clientProcess: opts.clientProcess })
      inOrder &&= r.inOrder
      ;(log ? on : off).push(r.seconds)
      ;(log ? cpuOn : cpuOff).push(r.cpuSeconds)
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const ratio = (a: number[], b: number[]) => Number((median(a) / median(b)).toFixed(3))
  // Each round's on/off pair ran back to back: the median of their ratios is less swayed by
  // the machine's load drifting over the run than the ratio of the medians.
  const paired = (a: number[], b: number[]) => Number(median(a.map((x, i) => x / b[i]!)).toFixed(3))
  return {
    rounds,
    clients,
    deltas,
    on: median(on),
    off: median(off),
    ratio: ratio(on, off),
    paired: paired(on, off),
    cpu: { on: median(cpuOn), off: median(cpuOff), ratio: ratio(cpuOn, cpuOff), paired: paired(cpuOn, cpuOff) },
    all: { on, off, cpuOn, cpuOff },
    inOrder,
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv.includes("--log")) {
  await runSseBench({ clients: 2, deltas: 500 }) // warm-up: provider package load, JIT
  // Clients in the server's process (their parsing counts against it), then 20 in a process of their own.
  for (const [clients, clientProcess] of [[1, false], [20, false], [20, true]] as const) {
    const rounds = Number(process.env.WRIGHT_BENCH_ROUNDS) || (clients === 1 ? 9 : 5)
    const r = await runEventLogBench({ clients, rounds, clientProcess })
    console.log(`event log: ${r.deltas} deltas, ${r.clients} client(s) ${clientProcess ? "in their own process" : "in the server's process"}, ${r.rounds} rounds each, interleaved`)
    console.log(`  wall: median ${r.on} s with the log, ${r.off} s without: ${r.ratio}x (target <= 1.05x), paired ${r.paired}x; in order: ${r.inOrder ? "yes" : "NO"}`)
    console.log(`  cpu (server's process):  median ${r.cpu.on} s with the log, ${r.cpu.off} s without: ${r.cpu.ratio}x, paired ${r.cpu.paired}x`)
    console.log(`  wall with: ${r.all.on.join(", ")}; without: ${r.all.off.join(", ")}`)
    console.log(`  cpu with: ${r.all.cpuOn.join(", ")}; without: ${r.all.cpuOff.join(", ")}`)
    if (!r.inOrder) process.exitCode = 1
  }
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await runSseBench({ clients: 2, deltas: 500 }) // warm-up: provider package load, JIT
  const baseline = await runSseBench({ clients: 1 })
  const r = await runSseBench()
  console.log(`sse: ${r.clients} clients × ${r.events} events of one busy session (${DELTAS} text deltas)`)
  console.log(`  every client got every event in the same order: ${r.inOrder ? "yes" : "NO"}`)
  console.log(`  ${r.eventsPerSecond.toLocaleString("en-US")} events/s delivered (${Math.round(r.eventsPerSecond / r.clients).toLocaleString("en-US")} per client), ${r.seconds} s`)
  console.log(`  one client alone: ${baseline.eventsPerSecond.toLocaleString("en-US")} events/s, ${baseline.seconds} s (the model stream's own pace)`)
  if (!r.inOrder || !baseline.inOrder) process.exitCode = 1
}

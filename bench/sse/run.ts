// 20 SSE clients on one busy session, over real TCP: the server (App + SQLite + HTTP on
// 127.0.0.1) streams one answer of many text deltas; every client must receive every event
// of that session, in the same order, and the deltas must rebuild the answer. Reports the
// events each client got and the events per second the server delivered (all clients).
// Run: npx tsx bench/sse/run.ts; with --log: the event log on vs off, interleaved
// (runEventLogBench), on the 20,000-delta answer (WRIGHT_BENCH_ROUNDS=n rounds of each).
import { serve } from "@hono/node-server"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { register } from "node:module"
import type { AddressInfo } from "node:net"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import v8 from "node:v8"
import vm from "node:vm"
import { startLLMServer } from "../../test/lib/llm-server"

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

/** A lean SSE reader: keeps each event's raw JSON; stops after `session.idle` of the session. */
async function readStream(url: string, sessionOf: () => string | undefined, onConnected: () => void, signal: AbortSignal): Promise<{ events: string[]; endAt: number }> {
  const res = await fetch(url, { signal })
  const decoder = new TextDecoder()
  const events: string[] = []
  let buffer = ""
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      // A logged event's frame starts with its `id:` line.
      const data = buffer.slice(buffer.startsWith("id:") ? buffer.indexOf("\n") + 7 : 6, end)
      buffer = buffer.slice(end + 2)
      if (data.startsWith('{"type":"server.connected"')) {
        onConnected()
        continue
      }
      const id = sessionOf()
      if (!id || !data.includes(id)) continue
      events.push(data)
      if (data.startsWith('{"type":"session.idle"')) return { events, endAt: performance.now() }
    }
  }
  throw new Error("stream ended before session.idle")
}

export async function runSseBench(opts: { clients?: number; deltas?: number; eventLog?: boolean } = {}): Promise<SseBench> {
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

  const chunks = Array.from({ length: DELTAS_N }, (_, i) => `w${i} `)
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
    let connected = 0
    let allConnected!: () => void
    const ready = new Promise<void>((r) => (allConnected = r))
    const readers = Array.from({ length: CLIENTS_N }, () =>
      readStream(`${base}/event`, () => session.id, () => ++connected === CLIENTS_N && allConnected(), controller.signal),
    )
    await ready
    collect()
    const start = performance.now()
    const cpu = process.cpuUsage()
    await client.session.prompt(session.id, { parts: [{ type: "text", text: "stream a long answer" }] })
    const results = await Promise.all(readers)
    controller.abort()
    const seconds = (Math.max(...results.map((r) => r.endAt)) - start) / 1000
    const used = process.cpuUsage(cpu)
    const cpuSeconds = Number(((used.user + used.system) / 1e6).toFixed(3))

    const reference = results[0]!.events
    const same = results.every((r) => r.events.length === reference.length && r.events.every((e, i) => e === reference[i]))
    const deltas = reference.filter((e) => e.startsWith('{"type":"message.part.delta"')).map((e) => JSON.parse(e).properties.delta as string)
    const inOrder = same && deltas.length === DELTAS_N && deltas.join("") === chunks.join("")
    const total = results.reduce((n, r) => n + r.events.length, 0)
    return { clients: CLIENTS_N, events: reference.length, eventsPerSecond: Math.round(total / seconds), inOrder, seconds: Number(seconds.toFixed(3)), cpuSeconds }
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
export async function runEventLogBench(opts: { rounds?: number; clients?: number; deltas?: number } = {}) {
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
      const r = await runSseBench({ clients, deltas, eventLog: log })
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
  for (const clients of [1, 20]) {
    const rounds = Number(process.env.WRIGHT_BENCH_ROUNDS) || (clients === 1 ? 9 : 5)
    const r = await runEventLogBench({ clients, rounds })
    console.log(`event log: ${r.deltas} deltas, ${r.clients} client(s), ${r.rounds} rounds each, interleaved`)
    console.log(`  wall: median ${r.on} s with the log, ${r.off} s without: ${r.ratio}x (target <= 1.05x), paired ${r.paired}x; in order: ${r.inOrder ? "yes" : "NO"}`)
    console.log(`  cpu:  median ${r.cpu.on} s with the log, ${r.cpu.off} s without: ${r.cpu.ratio}x, paired ${r.cpu.paired}x`)
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

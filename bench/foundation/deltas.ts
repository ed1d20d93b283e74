// One answer of 20,000 text deltas through the core in-process: App + in-memory SQLite +
// HTTP server, the prompt sent through the SDK client with `fetch = server.fetch` (as
// `wright run` does). Checks that every delta reached the bus AND the /event stream, and that
// the stored text equals the text sent; reports the times. The baseline, measured in the same
// run and interleaved: the AI SDK alone (streamText over the same provider package and wire),
// the floor no agent on that package can beat. Run: npx tsx bench/foundation/deltas.ts
import { register } from "node:module"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { streamText } from "ai"
import { startLLMServer } from "../../test/lib/llm-server"

export const DELTAS = 20_000
const RUNS = 5

export interface DeltaRun {
  /** From sending the prompt until the prompt call returned (the answer is complete and stored). */
  promptMs: number
  /** From sending the prompt until the last delta arrived on the /event stream. */
  streamMs: number
  busDeltas: number
  sseDeltas: number
  storedIntact: boolean
  streamedIntact: boolean
}

export interface DeltaBench {
  deltas: number
  runs: number
  promptMs: number
  streamMs: number
  /** Median time for the AI SDK alone to stream the same answer (the baseline). */
  sdkMs: number
  /** promptMs / sdkMs */
  ratio: number
  /** True when every run delivered every delta on the bus and on /event and stored the text intact. */
  allDelivered: boolean
  storedIntact: boolean
  samples: DeltaRun[]
}

let hooked = false

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

export async function runDeltaBench(): Promise<DeltaBench> {
  if (!hooked) {
    register("../grep/txt-loader.mjs", import.meta.url)
    hooked = true
  }
  const { createApp } = await import("../../src/session")
  const { openStore } = await import("../../src/storage")
  const { createServer } = await import("../../src/server")
  const { createClient } = await import("../../src/sdk")

  const chunks = Array.from({ length: DELTAS }, (_, i) => `d${i} `)
  const sent = chunks.join("")
  const server = await startLLMServer({ strict: false, fallback: () => ({ text: chunks }) })
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "wright-bench-deltas-")))
  const project = path.join(home, "project")
  mkdirSync(project)
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), XDG_DATA_HOME: path.join(home, "data") }
  const store = openStore(":memory:")
  const app = await createApp({
    directory: project,
    store,
    env,
    home,
    version: "bench",
    overrides: {
      model: "fake/chat-model",
      provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${server.url}/v1`, apiKey: "bench-key" }, models: { "chat-model": { limit: { context: 200_000, output: 8_000 } } } } },
    },
  })
  const http = createServer({ directory: project, getApp: async () => app, version: "bench" })
  const client = createClient({ baseUrl: "http://wright.internal", fetch: http.fetch, directory: project })

  async function once(): Promise<DeltaRun> {
    const session = await client.session.create({})
    let busDeltas = 0
    const unsubscribe = app.bus.subscribeAll((e) => {
      if (e.type === "message.part.delta" && e.properties.sessionID === session.id) busDeltas++
    })
    const events = new AbortController()
    let sseDeltas = 0
    let streamed = ""
    let lastDeltaAt = 0
    let connected!: () => void
    const ready = new Promise<void>((r) => (connected = r))
    // The pump leaves the stream itself at session.idle (after the last delta): an abort alone
    // does not end an in-process /event stream once its Request was garbage-collected.
    const pump = (async () => {
      for await (const e of client.event.subscribe({ signal: events.signal })) {
        if (e.type === "server.connected") connected()
        if (e.type === "message.part.delta" && e.properties.sessionID === session.id) {
          sseDeltas++
          streamed += e.properties.delta
          lastDeltaAt = performance.now()
        }
        if (e.type === "session.idle" && e.properties.sessionID === session.id) break
      }
    })().catch(() => {})
    await ready
    const start = performance.now()
    const result = await client.session.prompt(session.id, { parts: [{ type: "text", text: "stream" }] })
    const promptMs = performance.now() - start
    // A generous bound for the stream to catch up; a shortfall shows in sseDeltas.
    let timer: NodeJS.Timeout | undefined
    await Promise.race([pump, new Promise((r) => (timer = setTimeout(r, 30_000)))])
    clearTimeout(timer)
    events.abort()
    unsubscribe()
    const stored = store.messages.list(session.id).find((m) => m.info.id === result.info.id)
    const text = stored?.parts.find((p) => p.type === "text")
    return {
      promptMs,
      streamMs: lastDeltaAt ? lastDeltaAt - start : NaN,
      busDeltas,
      sseDeltas,
      storedIntact: text?.type === "text" && text.text === sent,
      streamedIntact: streamed === sent,
    }
  }

  const sdkModel = createOpenAICompatible({ name: "fake", baseURL: `${server.url}/v1`, apiKey: "bench-key", includeUsage: true })("chat-model")
  async function sdkOnly(): Promise<number> {
    const start = performance.now()
    let n = 0
    for await (const p of streamText({ model: sdkModel, prompt: "stream", maxRetries: 0 }).fullStream) if (p.type === "text-delta") n++
    if (n !== DELTAS) throw new Error(`AI SDK baseline saw ${n} deltas, expected ${DELTAS}`)
    return performance.now() - start
  }

  try {
    await once() // warm-up: provider package load, JIT
    await sdkOnly()
    const samples: DeltaRun[] = []
    const sdk: number[] = []
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) {
        samples.push(await once())
        sdk.push(await sdkOnly())
      } else {
        sdk.push(await sdkOnly())
        samples.push(await once())
      }
    }
    const promptMs = median(samples.map((s) => s.promptMs))
    const sdkMs = median(sdk)
    return {
      deltas: DELTAS,
      runs: RUNS,
      promptMs,
      streamMs: median(samples.map((s) => s.streamMs)),
      sdkMs,
      ratio: promptMs / sdkMs,
      allDelivered: samples.every((s) => s.busDeltas === DELTAS && s.sseDeltas === DELTAS && s.streamedIntact),
      storedIntact: samples.every((s) => s.storedIntact),
      samples,
    }
  } finally {
    await app.dispose()
    store.close()
    await server.close()
    rmSync(home, { recursive: true, force: true })
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runDeltaBench()
  for (const s of r.samples) console.log(`  prompt ${s.promptMs.toFixed(0)} ms, last /event delta ${s.streamMs.toFixed(0)} ms, bus ${s.busDeltas}, /event ${s.sseDeltas}, stored ${s.storedIntact}`)
  console.log(`${r.deltas} deltas, median of ${r.runs}: prompt ${r.promptMs.toFixed(0)} ms, stream ${r.streamMs.toFixed(0)} ms, AI SDK alone ${r.sdkMs.toFixed(0)} ms (${r.ratio.toFixed(2)}x); all delivered: ${r.allDelivered}; stored intact: ${r.storedIntact}`)
}

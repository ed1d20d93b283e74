// What the session lease costs a streaming answer: the 20,000-delta answer through the core
// in-process (App on a WAL database file, HTTP API through the SDK client), with the lease's
// heartbeat and follower as shipped (renew every 1 s, data_version poll every 250 ms), with
// both 20× as often (a stress bound), and with both off (the baseline). The three run
// interleaved, order rotating, each on a fresh App; figures are medians. Also the cost of one
// renewal on its own. Run: npx tsx bench/lease/heartbeat.ts
import { register } from "node:module"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { startLLMServer } from "../../test/lib/llm-server"

const DELTAS = 20_000
const RUNS = 7
const MODES = {
  off: { heartbeatMs: 0, followMs: 0 },
  shipped: {},
  stress: { heartbeatMs: 50, followMs: 12 },
} as const
type Mode = keyof typeof MODES

export interface LeaseBench {
  deltas: number
  runs: number
  offMs: number
  shippedMs: number
  stressMs: number
  /** shippedMs / offMs */
  ratio: number
  /** stressMs / offMs */
  stressRatio: number
  /** One renewal (the UPDATE of every lease this process holds), median µs. */
  renewUs: number
  /** One follower check when nothing changed (`PRAGMA data_version`), median µs. */
  pollUs: number
  /** What the timers take per second of streaming as shipped (1 renewal + 4 checks), as a fraction: the floor under the noisy end-to-end ratio. */
  timerShare: number
  /** Every answer complete and stored intact. */
  intact: boolean
}

let hooked = false
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function runLeaseBench(): Promise<LeaseBench> {
  if (!hooked) {
    register("../grep/txt-loader.mjs", import.meta.url)
    hooked = true
  }
  const { createApp } = await import("../../src/session")
  const { openStore, createLeases } = await import("../../src/storage")
  const { createServer } = await import("../../src/server")
  const { createClient } = await import("../../src/sdk")

  const chunks = Array.from({ length: DELTAS }, (_, i) => `d${i} `)
  const sent = chunks.join("")
  const llm = await startLLMServer({ strict: false, fallback: () => ({ text: chunks }) })
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "wright-bench-lease-")))
  const project = path.join(home, "project")
  mkdirSync(project)
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), XDG_DATA_HOME: path.join(home, "data") }
  const store = openStore(path.join(home, "wright.db"))
  const overrides = {
    model: "fake/chat-model",
    provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${llm.url}/v1`, apiKey: "bench-key" }, models: { "chat-model": { limit: { context: 200_000, output: 8_000 } } } } },
  }

  let intact = true
  async function once(mode: Mode): Promise<number> {
    const app = await createApp({ directory: project, store, env, home, version: "bench", overrides, lease: MODES[mode] })
    try {
      const http = createServer({ directory: project, getApp: async () => app, version: "bench" })
      const client = createClient({ baseUrl: "http://wright.internal", fetch: http.fetch, directory: project })
      const session = await client.session.create({})
      const start = performance.now()
      const result = await client.session.prompt(session.id, { parts: [{ type: "text", text: "stream" }] })
      const elapsed = performance.now() - start
      const stored = store.messages.list(session.id).find((m) => m.info.id === result.info.id)?.parts.find((p) => p.type === "text")
      if (stored?.type !== "text" || stored.text !== sent) intact = false
      return elapsed
    } finally {
      await app.dispose()
    }
  }

  function pollCost(): number {
    const samples: number[] = []
    for (let i = 0; i < 2000; i++) {
      const t = performance.now()
      store.db.pragma("data_version", { simple: true })
      samples.push((performance.now() - t) * 1000)
    }
    return median(samples)
  }

  function renewCost(): number {
    const leases = createLeases(store.db)
    leases.acquire("ses_bench_renew")
    const samples: number[] = []
    for (let i = 0; i < 2000; i++) {
      const t = performance.now()
      leases.renew(["ses_bench_renew"])
      samples.push((performance.now() - t) * 1000)
    }
    leases.releaseAll()
    return median(samples)
  }

  try {
    await once("off") // warm-up: provider package, JIT
    const times: Record<Mode, number[]> = { off: [], shipped: [], stress: [] }
    const order: Mode[] = ["off", "shipped", "stress"]
    for (let i = 0; i < RUNS; i++) {
      for (let k = 0; k < order.length; k++) {
        const mode = order[(i + k) % order.length]!
        times[mode].push(await once(mode))
      }
    }
    const offMs = median(times.off)
    const shippedMs = median(times.shipped)
    const stressMs = median(times.stress)
    const renewUs = renewCost()
    const pollUs = pollCost()
    const timerShare = (renewUs + 4 * pollUs) / 1_000_000
    return { deltas: DELTAS, runs: RUNS, offMs, shippedMs, stressMs, ratio: shippedMs / offMs, stressRatio: stressMs / offMs, renewUs, pollUs, timerShare, intact }
  } finally {
    store.close()
    await llm.close()
    rmSync(home, { recursive: true, force: true })
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runLeaseBench()
  console.log(
    `${r.deltas} deltas, median of ${r.runs}: lease off ${r.offMs.toFixed(0)} ms, shipped ${r.shippedMs.toFixed(0)} ms (${r.ratio.toFixed(3)}x), ` +
      `20x as often ${r.stressMs.toFixed(0)} ms (${r.stressRatio.toFixed(3)}x); one renewal ${r.renewUs.toFixed(1)} µs, one check ${r.pollUs.toFixed(1)} µs: ${(r.timerShare * 100).toFixed(4)}% of each second; intact: ${r.intact}`,
  )
}

// How long it takes to start step N+1 of a session: from the prompt call to the moment wright
// hands the step's request to the provider package (the "wright:llm.request" diagnostics
// channel), for sessions of 2,000 and 10,000 messages (each tool turn with ~6 KB of output, as
// bench/session/long.ts seeds) vs one of 20. Everything wright does per step is
// included (history, system prompt, tools, message and prompt conversion); also 10,000 messages
// compacted near the end (the model sees the summary and the kept tail). The provider's own
// serialisation of the request body and the wire are not. The live history is kept in memory
// and conversions are reused, so a long session must not cost a full reload per step. Run: npx tsx bench/session/step.ts
import { subscribe } from "node:diagnostics_channel"
import { register } from "node:module"
import { performance } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import path from "node:path"
import type { LLMServer } from "../../test/lib/llm-server"

// Tool descriptions are .txt imports: teach Node to load them before the core is imported.
register("../grep/txt-loader.mjs", import.meta.url)
// test/lib/e2e reaches src/tool (through the tool-context helpers), so it comes after the loader too.
const { providerConfig, sandbox, writeConfig } = await import("../../test/lib/e2e")
const { createApp } = await import("../../src/session")
const { openStore } = await import("../../src/storage")
const { Id } = await import("../../src/util")

const RUNS = 61
/** ~6 KB of read output per tool turn, like the long-session bench. */
const OUTPUT_BYTES = 6_000

async function timeStepStart(messages: number, llm: { url: string }, arrivals: number[], runs = RUNS, compacted = false) {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm as LLMServer, "openai-chat"))
  const store = openStore(":memory:")
  const app = await createApp({ directory: box.project, store, env: box.env, home: box.home, version: "bench" })
  const session = app.sessions.create()
  seed(app, session.id, messages, compacted)
  // Warm up once (module caches, provider construction), then measure fresh steps.
  await app.sessions.prompt(session.id, { parts: [{ type: "text", text: "warm up" }] })
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    arrivals.length = 0
    const start = performance.now()
    await app.sessions.prompt(session.id, { parts: [{ type: "text", text: `question ${i}` }] })
    samples.push(arrivals[0]! - start)
  }
  await app.dispose()
  store.close()
  return median(samples)
}

/** Fills a session with realistic turns: a question, a tool step with output, an answer; `compacted`: then a summary keeping the last 30 messages. */
function seed(app: Awaited<ReturnType<typeof createApp>>, sessionID: string, count: number, compacted = false) {
  const model = { providerID: "fake", modelID: "chat-model" }
  const base = { parentID: "", mode: "build", agent: "build", modelID: "chat-model", providerID: "fake", path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 100, output: 20, reasoning: 0, cache: { read: 0, write: 0 } } }
  let lastUser = ""
  let tailStart = ""
  for (let i = 0; i < count; i++) {
    if (i === count - 30) tailStart = Id.ascending("msg")
    const id = Id.ascending("msg")
    if (i % 3 === 0) {
      lastUser = id
      app.history.putMessage({ id, sessionID, role: "user", time: { created: Date.now() }, agent: "build", model })
      app.history.putPart({ id: Id.ascending("prt"), sessionID, messageID: id, type: "text", text: `Please look at module ${i} and fix the bug in it.` })
    } else {
      const finish = i % 3 === 1 ? "tool-calls" : "stop"
      app.history.putMessage({ ...base, id, sessionID, role: "assistant", parentID: lastUser, finish, time: { created: Date.now(), completed: Date.now() } })
      if (finish === "tool-calls")
        app.history.putPart({
          id: Id.ascending("prt"), sessionID, messageID: id, type: "tool", callID: `call_${i}`, tool: "read",
          state: { status: "completed", input: { filePath: `src/m${i}.ts` }, output: readOutput(i), title: `src/m${i}.ts`, metadata: {}, time: { start: 1, end: 2 } },
        })
      else app.history.putPart({ id: Id.ascending("prt"), sessionID, messageID: id, type: "text", text: `Fixed module ${i}: the off-by-one in the loop.` })
    }
  }
  if (!compacted) return
  const request = Id.ascending("msg")
  app.history.putMessage({ id: request, sessionID, role: "user", time: { created: Date.now() }, agent: "build", model })
  app.history.putPart({ id: Id.ascending("prt"), sessionID, messageID: request, type: "compaction", auto: false, tail_start_id: tailStart })
  const summary = Id.ascending("msg")
  app.history.putMessage({ ...base, id: summary, sessionID, role: "assistant", parentID: request, summary: true, finish: "stop", time: { created: Date.now(), completed: Date.now() } })
  app.history.putPart({ id: Id.ascending("prt"), sessionID, messageID: summary, type: "text", text: "What we did so far: fixed the off-by-one in every module." })
}

function readOutput(i: number) {
  let out = ""
  for (let k = 0; out.length < OUTPUT_BYTES; k++) out += `${String(k + 1).padStart(5)}: export function step${i}_${k}(input: number) { return input * ${k} } // module ${i}\n`
  return out
}

/** The bundled scripted model server (dist/llm-server.mjs, built by `npm run bench`) in a child process. */
function externalServer(): Promise<{ url: string; close(): void }> {
  const bundle = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/llm-server.mjs")
  const code = `const { startLLMServer } = await import(${JSON.stringify(bundle)}); const s = await startLLMServer({ strict: false, fallback: () => ({ text: "ok" }) }); console.log(s.url)`
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] })
  return new Promise((resolve, reject) => {
    child.on("error", reject)
    child.stdout!.once("data", (d) => resolve({ url: String(d).trim(), close: () => child.kill() }))
  })
}

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

export async function runStepBench(): Promise<{ smallMs: number; largeMs: number; ratio: number; hugeMs: number; hugeRatio: number; compactedMs: number; compactedRatio: number }> {
  const arrivals: number[] = []
  subscribe("wright:llm.request", () => arrivals.push(performance.now()))
  // The fake model runs in its own process: parsing each (large) request is its work, and its
  // garbage must not be collected on wright's time.
  const llm = await externalServer()
  try {
    const smallMs = await timeStepStart(20, llm, arrivals)
    const largeMs = await timeStepStart(2000, llm, arrivals)
    // Each run adds a turn and the fake model parses a ~20 MB body per request: fewer runs.
    const hugeMs = await timeStepStart(10_000, llm, arrivals, 21)
    const compactedMs = await timeStepStart(10_000, llm, arrivals, 21, true)
    return { smallMs, largeMs, ratio: largeMs / smallMs, hugeMs, hugeRatio: hugeMs / smallMs, compactedMs, compactedRatio: compactedMs / smallMs }
  } finally {
    llm.close()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const r = await runStepBench()
  console.log(`step N+1 start: 20 messages ${r.smallMs.toFixed(1)} ms, 2000 messages ${r.largeMs.toFixed(1)} ms, ratio ${r.ratio.toFixed(2)}x; 10000 messages ${r.hugeMs.toFixed(1)} ms, ratio ${r.hugeRatio.toFixed(2)}x (target <= 2x); 10000 compacted ${r.compactedMs.toFixed(1)} ms, ratio ${r.compactedRatio.toFixed(2)}x`)
}

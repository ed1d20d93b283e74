// The foundation's CLI figures, the built binary against an llm-server that answers at once.
// `--version` is compared with `node -e 0`; every `run` with the floor (floor.mjs: the same
// streamed request, the same body, parsed and printed by a bare Node script), measured in the
// same run, interleaved:
//   --version ≤ 1.2× node -e 0 · `run "hi"` ≤ 1.3× the floor and < 120 MB peak RSS ·
//   20 tool steps ≤ 0.9 s · one answer of 20,000 deltas ≤ 1.4× the floor, streamed and stored intact.
// Run alone: node scripts/build.mjs && node bench/foundation/cli.mjs
import Database from "better-sqlite3"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { HAVE_TIME, interleaved, measure, median, providerConfig, sandbox } from "./measure.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
// The command as package.json installs it: `run` starts from the startup snapshot.
const BIN = path.join(ROOT, "bin/wright")
const FLOOR = path.join(ROOT, "bench/foundation/floor.mjs")
const NODE = process.execPath

export const LOOP_STEPS = 20
export const DELTAS = 20_000
const RUNS = { version: 21, hi: 11, loop: 7, deltas: 5 }

/** The text of the first user message in an OpenAI Chat request: it names the scenario. */
function scenario(body) {
  const user = body?.messages?.find((m) => m.role === "user")
  const content = user?.content
  if (typeof content === "string") return content
  return Array.isArray(content) ? content.map((c) => c.text ?? "").join("") : ""
}

export const deltaText = () => Array.from({ length: DELTAS }, (_, i) => `d${i} `)

/** Step k of the loop (k = tool results so far): read, write, bash in turn, then a text answer. */
function loopReply(body) {
  const k = body.messages.filter((m) => m.role === "tool").length
  if (k >= LOOP_STEPS - 1) return { text: "loop done" }
  const calls = [
    { name: "read", input: { filePath: "notes.txt" } },
    { name: "write", input: { filePath: `out/step-${k}.txt`, content: `step ${k}\n` } },
    { name: "bash", input: { command: `echo step-${k}`, description: `Echo step ${k}` } },
  ]
  return { toolCalls: [calls[k % 3]] }
}

export function reply(req) {
  const name = scenario(req.body)
  if (name === "loop") return loopReply(req.body)
  if (name === "deltas") return { text: deltaText() }
  return { text: "Hello! How can I help?" }
}

function expectOk(what) {
  return (r) => {
    if (r.code !== 0) throw new Error(`${what}: exit ${r.code}\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${r.stderr.slice(-2000)}`)
  }
}

export async function runCliBench() {
  const server = await startLLMServer({ strict: false, fallback: reply })
  const box = sandbox()
  try {
    writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(server.url)))
    writeFileSync(path.join(box.project, "notes.txt"), "notes for the bench\n")
    const opts = { cwd: box.project, env: box.env }
    const baseline = (rss) => () => measure([NODE, "-e", "0"], { ...opts, rss })
    const wright = (args, rss) => () => measure([BIN, ...args], { ...opts, env: { ...opts.env, WRIGHT_NODE: NODE }, rss })

    const version = await interleaved({ subject: wright(["--version"]), baseline: baseline(false), runs: RUNS.version, check: expectOk("--version") })

    // The floor replays the exact body wright sent for the same prompt.
    const bodyOf = async (prompt) => {
      expectOk(`run ${prompt}`)(await wright(["run", prompt])())
      const file = path.join(box.home, `floor-${prompt}.json`)
      writeFileSync(file, JSON.stringify(server.requests.at(-1).body))
      return file
    }
    const floorOf = (file) => (rss) => () => measure([NODE, FLOOR, `${server.url}/v1/chat/completions`, file], { ...opts, rss })
    const floorHi = floorOf(await bodyOf("hi"))
    const floorDeltas = floorOf(await bodyOf("deltas"))

    const hi = await interleaved({
      subject: wright(["run", "hi"], true),
      baseline: floorHi(true),
      runs: RUNS.hi,
      check: (r) => {
        expectOk("run hi")(r)
        if (!r.stdout.includes("Hello! How can I help?")) throw new Error(`run hi: answer missing from stdout: ${r.stdout}`)
      },
    })

    const loop = await interleaved({
      subject: wright(["run", "loop"], true),
      baseline: floorHi(true),
      runs: RUNS.loop,
      check: (r) => {
        expectOk("run loop")(r)
        const settled = (r.stderr.match(/✓/g) ?? []).length
        if (settled !== LOOP_STEPS - 1 || !r.stdout.includes("loop done")) throw new Error(`run loop: expected ${LOOP_STEPS - 1} completed tools and the answer, got ${settled}\n${r.stderr}`)
      },
    })

    const sent = deltaText().join("")
    let storedIntact = true
    let streamedIntact = true
    let fewestChars = Infinity
    const deltas = await interleaved({
      subject: wright(["run", "deltas"], true),
      baseline: floorDeltas(true),
      runs: RUNS.deltas,
      check: (r) => {
        expectOk("run deltas")(r)
        // The text renderer writes each delta as it is published: stdout is the answer.
        if (r.stdout.trimEnd() !== sent.trimEnd()) streamedIntact = false
        fewestChars = Math.min(fewestChars, r.stdout.trimEnd().length)
        if (lastAnswer(box.dbPath) !== sent) storedIntact = false
      },
    })

    const summary = (m, withRss) => ({
      medianMs: median(m.subject.map((r) => r.ms)),
      baselineMs: median(m.baseline.map((r) => r.ms)),
      ratio: median(m.subject.map((r) => r.ms)) / median(m.baseline.map((r) => r.ms)),
      runs: m.subject.length,
      ...(withRss && HAVE_TIME ? { rssMB: median(m.subject.map((r) => r.rssMB)), maxRssMB: Math.max(...m.subject.map((r) => r.rssMB)), baselineRssMB: median(m.baseline.map((r) => r.rssMB)) } : {}),
    })
    return {
      version: summary(version, false),
      hi: summary(hi, true),
      loop: { ...summary(loop, true), steps: LOOP_STEPS },
      deltas: { ...summary(deltas, true), deltas: DELTAS, streamedIntact, storedIntact, sentChars: sent.trimEnd().length, fewestStdoutChars: fewestChars },
      rssMeasured: HAVE_TIME,
    }
  } finally {
    await server.close()
    box.remove()
  }
}

/** The newest text part in the database: the answer of the last run. */
export function lastAnswer(dbPath) {
  const db = new Database(dbPath, { readonly: true })
  try {
    const rows = db.prepare("SELECT data FROM part ORDER BY id DESC LIMIT 20").all()
    const part = rows.map((r) => JSON.parse(r.data)).find((p) => p.type === "text")
    return part?.text
  } finally {
    db.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runCliBench(), null, 2))
}

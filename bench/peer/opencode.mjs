// wright and OpenCode side by side on the same tasks, against the same scripted model server,
// runs interleaved: --version, one short answer, a 20-step tool loop, one answer of 20,000
// deltas; wall time and peak RSS. OpenCode 1.18.33 (the version wright follows) is installed
// on demand from the npm registry into .tmp/peers (never committed); without it the bench is
// skipped. Run alone: node scripts/build.mjs && node bench/peer/opencode.mjs
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { DELTAS, LOOP_STEPS, deltaText, reply } from "../foundation/cli.mjs"
import { HAVE_TIME, interleaved, measure, median, providerConfig, sandbox } from "../foundation/measure.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const BIN = path.join(ROOT, "bin/wright.cjs")
const VERSION = "1.18.33"
const PEERS = path.join(ROOT, ".tmp/peers")
const RUNS = { version: 9, hi: 5, loop: 3, deltas: 3 }

/** The OpenCode binary for this platform, installed from npm when missing. */
export function opencodeBinary() {
  const pkg = `opencode-${process.platform}-${process.arch}`
  const bin = path.join(PEERS, "node_modules", pkg, "bin", "opencode")
  if (existsSync(bin)) return { bin }
  mkdirSync(PEERS, { recursive: true })
  const r = spawnSync("npm", ["i", "--no-save", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", PEERS, `${pkg}@${VERSION}`], { encoding: "utf8", timeout: 300_000 })
  if (r.status !== 0 || !existsSync(bin)) return { skipped: `could not install ${pkg}@${VERSION}: ${(r.stderr || r.error?.message || "").trim().split("\n").at(-1)}` }
  return { bin }
}

export async function runPeerBench() {
  const found = opencodeBinary()
  if (!found.bin) return { skipped: found.skipped }
  const server = await startLLMServer({ strict: false, fallback: reply })
  const box = sandbox()
  try {
    const config = JSON.stringify(providerConfig(server.url))
    writeFileSync(path.join(box.project, "wright.json"), config)
    writeFileSync(path.join(box.project, "opencode.json"), config)
    writeFileSync(path.join(box.project, "notes.txt"), "notes for the bench\n")
    const env = { ...box.env, OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" }
    const opts = { cwd: box.project, env }
    const wright = (args, rss) => () => measure([process.execPath, BIN, ...args], { ...opts, rss })
    const opencode = (args, rss) => () => measure([found.bin, ...args], { ...opts, rss, timeoutMs: 180_000 })
    const ok = (what, needle) => (r) => {
      if (r.code !== 0 || (needle && !r.stdout.includes(needle))) throw new Error(`${what}: exit ${r.code}\n${r.stdout.slice(-1500)}\n${r.stderr.slice(-1500)}`)
    }
    const both = async (name, args, rss, runs, needle) => {
      // Each side is checked: a peer that fails the task does not get a time.
      await opencode(args, rss)().then(ok(`opencode ${name}`, needle))
      const m = await interleaved({ subject: wright(args, rss), baseline: opencode(args, rss), runs, check: ok(`wright ${name}`, needle) })
      const w = median(m.subject.map((r) => r.ms))
      const o = median(m.baseline.map((r) => r.ms))
      return {
        wrightMs: w,
        opencodeMs: o,
        speedup: o / w,
        ...(rss && HAVE_TIME ? { wrightRssMB: median(m.subject.map((r) => r.rssMB)), opencodeRssMB: median(m.baseline.map((r) => r.rssMB)) } : {}),
      }
    }
    return {
      opencode: VERSION,
      version: await both("--version", ["--version"], false, RUNS.version),
      hi: await both("run hi", ["run", "hi"], true, RUNS.hi, "Hello! How can I help?"),
      loop: { ...(await both("run loop", ["run", "loop"], true, RUNS.loop, "loop done")), steps: LOOP_STEPS },
      deltas: { ...(await both("run deltas", ["run", "deltas"], true, RUNS.deltas, deltaText().at(-1).trim())), deltas: DELTAS },
      rssMeasured: HAVE_TIME,
    }
  } finally {
    await server.close()
    box.remove()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runPeerBench(), null, 2))
}

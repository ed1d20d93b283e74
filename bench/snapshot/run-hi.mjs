// `wright run "hi"` with snapshots on against the same with `snapshot: false`, interleaved in
// one run (issue 13: on within 5% of off). The built binary; the llm-server answers at once.
// Run alone: node scripts/build.mjs && node bench/snapshot/run-hi.mjs
import { writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { interleaved, measure, median, providerConfig, sandbox } from "../foundation/measure.mjs"

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../bin/wright.cjs")
const RUNS = 11

export async function runSnapshotRunBench() {
  const server = await startLLMServer({ strict: false, fallback: () => ({ text: "Hello! How can I help?" }) })
  const on = sandbox()
  const off = sandbox()
  try {
    writeFileSync(path.join(on.project, "wright.json"), JSON.stringify(providerConfig(server.url)))
    writeFileSync(path.join(off.project, "wright.json"), JSON.stringify({ ...providerConfig(server.url), snapshot: false }))
    for (const box of [on, off]) writeFileSync(path.join(box.project, "notes.txt"), "notes\n")
    const run = (box) => () => measure([process.execPath, BIN, "run", "hi"], { cwd: box.project, env: box.env })
    const check = (r) => {
      if (r.code !== 0 || !r.stdout.includes("Hello!")) throw new Error(`run hi failed: ${r.stderr.slice(-1000)}`)
    }
    const m = await interleaved({ subject: run(on), baseline: run(off), runs: RUNS, check })
    const onMs = median(m.subject.map((r) => r.ms))
    const offMs = median(m.baseline.map((r) => r.ms))
    return { onMs, offMs, ratio: onMs / offMs, runs: RUNS }
  } finally {
    await server.close()
    on.remove()
    off.remove()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) console.log(JSON.stringify(await runSnapshotRunBench(), null, 2))

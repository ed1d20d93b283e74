// `run "hi"` wall time of this build against another build of wright (e.g. main before a
// change), interleaved in one run so that the machine's drift hits both; medians and ratio.
// Build both first (`npm run build` here and there), then:
//   node bench/foundation/startup-compare.mjs /path/to/other/bin/wright.cjs [runs]
import { writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { interleaved, measure, median, providerConfig, sandbox } from "./measure.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const other = process.argv[2]
if (!other) throw new Error("usage: node bench/foundation/startup-compare.mjs /path/to/other/bin/wright.cjs [runs]")
const runs = Number(process.argv[3] ?? 21)

const server = await startLLMServer({ strict: false, fallback: () => ({ text: "Hello! How can I help?" }) })
const box = sandbox()
writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(server.url)))
const opts = { cwd: box.project, env: box.env }
const check = (r) => {
  if (r.code !== 0 || !r.stdout.includes("Hello!")) throw new Error(`run hi failed: ${r.code}\n${r.stderr}`)
}
const { subject, baseline } = await interleaved({
  subject: () => measure([process.execPath, path.join(ROOT, "bin/wright.cjs"), "run", "hi"], opts),
  baseline: () => measure([process.execPath, other, "run", "hi"], opts),
  runs,
  check,
})
await server.close()
const s = median(subject.map((r) => r.ms))
const b = median(baseline.map((r) => r.ms))
console.log(JSON.stringify({ runs, thisMs: +s.toFixed(1), otherMs: +b.toFixed(1), ratio: +(s / b).toFixed(3) }))

// The cost of plugins on `run "hi"` (issue 15), the built binary against an llm-server that
// answers at once, all in one run, interleaved:
//   no plugin configured vs the same binary's baseline: WRIGHT_BASE_BIN (a wright built
//   without plugin support, e.g. from the commit before it) when set, else `node -e 0`;
//   target: no plugins within 3% of the base binary (src/plugin is never loaded then);
//   one local TypeScript plugin (bundle cached after the first run): the cost, reported.
// Run alone: node scripts/build.mjs && WRIGHT_BASE_BIN=/path/to/base/bin/wright.cjs node bench/plugin/cli.mjs
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startLLMServer } from "../../dist/llm-server.mjs"
import { interleaved, measure, median, providerConfig, sandbox } from "../foundation/measure.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const BIN = path.join(ROOT, "bin/wright.cjs")
const RUNS = 11

const PLUGIN = `import type { Plugin } from "@opencode-ai/plugin"
export const Counter: Plugin = async () => {
  let events = 0
  return {
    event: async () => void events++,
    "chat.params": async (_input, output) => { output.options.bench = events },
  }
}
`

function expectHi(r) {
  if (r.code !== 0 || !r.stdout.includes("Hello! How can I help?")) throw new Error(`run hi: exit ${r.code}\nstdout: ${r.stdout.slice(-1000)}\nstderr: ${r.stderr.slice(-1000)}`)
}

export async function runPluginBench() {
  const server = await startLLMServer({ strict: false, fallback: () => ({ text: "Hello! How can I help?" }) })
  const plain = sandbox()
  const withPlugin = sandbox()
  try {
    for (const box of [plain, withPlugin]) writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(server.url)))
    mkdirSync(path.join(withPlugin.project, ".wright", "plugin"), { recursive: true })
    writeFileSync(path.join(withPlugin.project, ".wright", "plugin", "counter.ts"), PLUGIN)
    const hi = (bin, box) => () => measure([process.execPath, bin, "run", "hi"], { cwd: box.project, env: box.env })
    const base = process.env.WRIGHT_BASE_BIN
    const baseline = base ? hi(base, plain) : () => measure([process.execPath, "-e", "0"], { cwd: plain.project, env: plain.env })

    const none = await interleaved({ subject: hi(BIN, plain), baseline, runs: RUNS, check: expectHi })
    const one = await interleaved({ subject: hi(BIN, withPlugin), baseline: hi(BIN, plain), runs: RUNS, check: expectHi })
    const med = (xs) => median(xs.map((r) => r.ms))
    return {
      baseline: base ? "base binary" : "node -e 0",
      none: { medianMs: med(none.subject), baselineMs: med(none.baseline), ratio: med(none.subject) / med(none.baseline), runs: RUNS },
      one: { medianMs: med(one.subject), baselineMs: med(one.baseline), costMs: med(one.subject) - med(one.baseline), ratio: med(one.subject) / med(one.baseline), runs: RUNS },
    }
  } finally {
    await server.close()
    plain.remove()
    withPlugin.remove()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runPluginBench(), null, 2))
}

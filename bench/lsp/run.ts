// LSP bench: the edit tool on a 200-file TypeScript project with the real
// typescript-language-server, timed from the call to the result (diagnostics included):
// cold (the session's first edit, server start included, a fresh server each run) and warm
// (the same server, edits that break and fix the types in turn). Then the cost of the LSP
// machinery on `wright run "hi"` (no file touched): default config against `lsp: false,
// formatter: false`, runs interleaved. Targets: warm median ≤ 1 s, cold ≤ 5 s, run "hi" ≤ 5%.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { register } from "node:module"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const FILES = 200
const COLD_RUNS = 3
const WARM_RUNS = 10
const HI_RUNS = 11
/** A short model turn: the time between a read's result and the edit call that follows it. */
const MODEL_TURN_MS = 3000

export interface LspBench {
  files: number
  coldMs: number
  /** The first edit right after a read of the file (the read starts the server in the background), timed from the edit. */
  coldAfterReadMs: number
  /** The same with a model turn (MODEL_TURN_MS) between the read and the edit, as in a session. */
  coldAfterTurnMs: number
  warmMs: number
  /** Every edit that broke the types got the error in its result, and every fix came back clean. */
  diagnosticsRight: boolean
  hiMs?: number
  hiBaselineMs?: number
  hiRatio?: number
  /** os.loadavg()[0] when the edits started and ended: the machine is shared. */
  load: [number, number]
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

/** 200 modules, each importing the one before: a checker has real work to do. */
function makeProject(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "wright-lsp-bench-"))
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "bench", type: "module" }))
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "es2022", module: "nodenext", lib: ["es2022"], types: [], noEmit: true }, include: ["src"] }))
  const src = path.join(dir, "src")
  mkdirSync(src)
  for (let i = 0; i < FILES; i++) {
    const prev = i === 0 ? "" : `import { value${i - 1}, type Shape${i - 1} } from "./m${i - 1}.js"\n`
    const body = [
      prev,
      `export interface Shape${i} { id: number; name: string; next?: ${i === 0 ? "undefined" : `Shape${i - 1}`} }`,
      `export function make${i}(id: number): Shape${i} {`,
      `  return { id, name: "m${i}-" + id${i === 0 ? "" : `, next: { id: id - 1, name: "prev" }`} }`,
      `}`,
      `export const value${i}: number = ${i === 0 ? "1" : `value${i - 1} + 1`}`,
      "",
    ].join("\n")
    writeFileSync(path.join(src, `m${i}.ts`), body)
  }
  return dir
}

export async function runLspBench(): Promise<LspBench> {
  register("../grep/txt-loader.mjs", import.meta.url)
  const { createCodeIntel } = await import("../../src/lsp")
  const { createExec } = await import("../../src/process")
  const { createFileService, editTool, readTool } = await import("../../src/tool")
  const { toolContext } = await import("../../test/lib/tool-context")
  const env = { PATH: `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, HOME: os.homedir() }
  const dir = makeProject()
  const file = path.join(dir, "src", `m${FILES - 1}.ts`)
  let right = true

  const session = () => {
    // A long bound so the figure is the real time to the diagnostics, not the bound.
    const config: Record<string, unknown> = { lsp: { timeout: 60_000 }, formatter: false }
    const intel = createCodeIntel({ config, exec: createExec({ env }), directory: dir, env, trusted: true, publish: () => {} })
    const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [intel.afterWrite] }) })
    ctx.services.lsp = intel.queries
    let broken = false
    const edit = async () => {
      const [from, to] = broken ? ['"broken"', `value${FILES - 2} + 1`] : [`value${FILES - 2} + 1`, '"broken"']
      const t0 = performance.now()
      const out = await editTool.execute({ filePath: file, oldString: `= ${from}`, newString: `= ${to}` }, ctx)
      const ms = performance.now() - t0
      broken = !broken
      const hasError = out.output.includes("Type 'string' is not assignable to type 'number'")
      if (hasError !== broken) right = false
      return ms
    }
    const read = () => readTool.execute({ filePath: file }, ctx)
    return { intel, edit, read, restore: async () => (broken ? edit() : 0) }
  }

  const loadBefore = os.loadavg()[0]!
  const cold: number[] = []
  const coldAfterRead: number[] = []
  const coldAfterTurn: number[] = []
  for (let i = 0; i < COLD_RUNS; i++) {
    for (const [gap, into] of [[-1, cold], [0, coldAfterRead], [MODEL_TURN_MS, coldAfterTurn]] as const) {
      const s = session()
      if (gap >= 0) await s.read()
      if (gap > 0) await new Promise((r) => setTimeout(r, gap))
      into.push(await s.edit())
      await s.restore()
      await s.intel.shutdown()
    }
  }
  const s = session()
  await s.edit()
  const warm: number[] = []
  for (let i = 0; i < WARM_RUNS; i++) warm.push(await s.edit())
  await s.restore()
  await s.intel.shutdown()

  const load: [number, number] = [loadBefore, os.loadavg()[0]!]
  const edits = { files: FILES, coldMs: median(cold), coldAfterReadMs: median(coldAfterRead), coldAfterTurnMs: median(coldAfterTurn), warmMs: median(warm), diagnosticsRight: right, load }
  // WRIGHT_BENCH_LSP_EDITS_ONLY=1: the edit figures alone (run "hi" needs `npm run build`).
  if (process.env.WRIGHT_BENCH_LSP_EDITS_ONLY === "1") return edits
  const hi = await runHi()
  return { ...edits, hiMs: hi.subject, hiBaselineMs: hi.baseline, hiRatio: hi.subject / hi.baseline }
}

/** `wright run "hi"` with the default config (LSP on, lazy) against `lsp: false, formatter: false`. */
async function runHi(): Promise<{ subject: number; baseline: number }> {
  const { startLLMServer } = (await import(path.join(ROOT, "dist/llm-server.mjs"))) as typeof import("../../test/lib/llm-server")
  const { interleaved, measure, providerConfig, sandbox } = (await import(path.join(ROOT, "bench/foundation/measure.mjs"))) as {
    interleaved(o: { subject: () => Promise<{ ms: number; code: number }>; baseline: () => Promise<{ ms: number; code: number }>; runs: number; check?: (r: { code: number; stdout: string }) => void }): Promise<{ subject: { ms: number }[]; baseline: { ms: number }[] }>
    measure(argv: string[], o: { cwd: string; env: Record<string, string | undefined> }): Promise<{ ms: number; code: number; stdout: string }>
    providerConfig(url: string): Record<string, unknown>
    sandbox(): { project: string; env: Record<string, string | undefined>; remove(): void }
  }
  const { reply } = (await import(path.join(ROOT, "bench/foundation/cli.mjs"))) as { reply: (req: unknown) => unknown }
  const server = await startLLMServer({ strict: false, fallback: reply as never })
  const on = sandbox()
  const off = sandbox()
  try {
    writeFileSync(path.join(on.project, "wright.json"), JSON.stringify(providerConfig(server.url)))
    writeFileSync(path.join(off.project, "wright.json"), JSON.stringify({ ...providerConfig(server.url), lsp: false, formatter: false }))
    const bin = path.join(ROOT, "bin/wright.cjs")
    const run = (box: typeof on) => () => measure([process.execPath, bin, "run", "hi"], { cwd: box.project, env: box.env })
    const r = await interleaved({
      subject: run(on),
      baseline: run(off),
      runs: HI_RUNS,
      check: (x) => {
        if (x.code !== 0) throw new Error(`run hi exited ${x.code}`)
      },
    })
    return { subject: median(r.subject.map((x) => x.ms)), baseline: median(r.baseline.map((x) => x.ms)) }
  } finally {
    on.remove()
    off.remove()
    await server.close()
  }
}

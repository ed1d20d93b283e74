// grep tool vs plain ripgrep on a 50,000-file tree: median wall time of several runs each.
// Run: npx tsx bench/grep/run.ts   (target: tool ≤ 1.5× rg)
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { register } from "node:module"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"

const FILES = 50_000
const DIRS = 500
const IGNORED = 2_000
const RUNS = 9
const NEEDLE = "zebra_quux_needle"

export interface GrepBench {
  toolMs: number
  rgMs: number
  ratio: number
}

/** 48,000 searchable files (60 of them match, fewer than the tool's 100-match limit, so both walk the whole tree) + 2,000 in a .gitignore'd dir. */
function makeTree(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "wright-grep-bench-"))
  writeFileSync(path.join(root, ".gitignore"), "ignored/\n")
  const body = Array.from({ length: 40 }, (_, i) => `export const value${i} = compute(${i}) // some ordinary source text`).join("\n")
  const searchable = FILES - IGNORED
  for (let i = 0; i < searchable; i++) {
    const dir = path.join(root, "src", `d${i % DIRS}`)
    if (i < DIRS) mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, `f${i}.ts`), i % 800 === 0 ? `${body}\n// ${NEEDLE}\n` : body)
  }
  mkdirSync(path.join(root, "ignored"))
  for (let i = 0; i < IGNORED; i++) writeFileSync(path.join(root, "ignored", `g${i}.ts`), `${NEEDLE}\n`)
  return root
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

async function sample(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

/** Median times of `a` and `b`, runs interleaved (order alternating) so drift on a shared machine hits both alike. */
async function compare(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  await a() // warm-up: page cache, process start-up paths
  await b()
  const as: number[] = []
  const bs: number[] = []
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) {
      as.push(await sample(a))
      bs.push(await sample(b))
    } else {
      bs.push(await sample(b))
      as.push(await sample(a))
    }
  }
  return [median(as), median(bs)]
}

function rgDirect(rg: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ["ignore", "pipe", "ignore"] })
    let bytes = 0
    child.stdout.on("data", (b: Buffer) => (bytes += b.length))
    child.on("error", reject)
    child.on("close", () => resolve(bytes))
  })
}

let hooked = false

export async function runGrepBench(): Promise<GrepBench> {
  if (!hooked) {
    register("./txt-loader.mjs", import.meta.url)
    hooked = true
  }
  const { grepTool } = await import("../../src/tool/grep")
  const { BASE_FLAGS, ripgrepBinary } = await import("../../src/tool/ripgrep")
  const { createFileService } = await import("../../src/tool")
  const { createExec } = await import("../../src/process")
  const root = makeTree()
  try {
    const ctx = {
      sessionID: "ses_bench",
      messageID: "msg_bench",
      callID: "call_bench",
      agent: "build",
      directory: root,
      worktree: root,
      abort: new AbortController().signal,
      ask: async () => {},
      metadata: () => {},
      services: {
        todos: { get: () => [], set: () => {} },
        question: { ask: async () => [] },
        claimInstructions: () => [],
        exec: createExec({ env: process.env }),
        files: createFileService({ edited: () => {}, afterWrite: [] }),
      },
      outputDir: path.join(root, ".out"),
      limits: { maxLines: 2000, maxBytes: 51200 },
      canDelegate: false,
    }
    const result = await grepTool.execute({ pattern: NEEDLE }, ctx)
    if (result.metadata.matches !== 60) throw new Error(`bench tree is wrong: expected 60 matches, got ${result.metadata.matches}`)

    const rg = await ripgrepBinary()
    const args = ["--json", ...BASE_FLAGS, "--", NEEDLE]
    const [toolMs, rgMs] = await compare(
      () => grepTool.execute({ pattern: NEEDLE }, ctx),
      () => rgDirect(rg, args, root),
    )
    return { toolMs, rgMs, ratio: toolMs / rgMs }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const r = await runGrepBench()
  console.log(`grep over ${FILES} files, median of ${RUNS} runs`)
  console.log(`  grep tool: ${r.toolMs.toFixed(1)} ms`)
  console.log(`  rg direct: ${r.rgMs.toFixed(1)} ms`)
  console.log(`  ratio:     ${r.ratio.toFixed(2)}x (target <= 1.5x)`)
}

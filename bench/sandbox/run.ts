// The OS sandbox's cost per bash call: the same command (`true`, and a small git status) run
// through the bash tool's runner, inside bwrap and outside, interleaved in the same run so the
// shared machine's drift hits both alike. Median wall time of each; target: overhead ≤ 15 ms.
// Run: npx tsx bench/sandbox/run.ts
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { createExec, resolveSandbox, type Sandbox } from "../../src/process"
import { runShell } from "../../src/tool/shell-run"

const RUNS = 41

export interface SandboxBench {
  skipped?: string
  sandboxedMs: number
  plainMs: number
  overheadMs: number
  gitSandboxedMs: number
  gitPlainMs: number
  gitOverheadMs: number
  /** CPU time (user + system) of the children per call, from /proc/self/stat: load-independent where wall time is not. */
  cpuSandboxedMs: number
  cpuPlainMs: number
}

const TICK_MS = 10 // USER_HZ is 100 on Linux

/** CPU time of the children this process has reaped so far (cutime + cstime). */
function childCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").replace(/^.*\) /, "").split(" ")
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

export async function runSandboxBench(): Promise<SandboxBench> {
  const project = mkdtempSync(path.join(os.tmpdir(), "wright-sandbox-bench-"))
  execFileSync("git", ["init", "-q", project])
  writeFileSync(path.join(project, "a.txt"), "a\n")
  const env = { PATH: process.env.PATH, HOME: os.homedir() }
  const box = await resolveSandbox({ config: {}, worktree: project, directory: project, env, home: os.homedir(), restrictReads: false })
  if (box.state !== "on") {
    rmSync(project, { recursive: true, force: true })
    return { skipped: box.state === "unavailable" ? box.reason : "sandbox off", sandboxedMs: 0, plainMs: 0, overheadMs: 0, gitSandboxedMs: 0, gitPlainMs: 0, gitOverheadMs: 0, cpuSandboxedMs: 0, cpuPlainMs: 0 }
  }
  const exec = createExec({ env })
  const once = async (command: string, sandbox: Sandbox | "off") => {
    const start = performance.now()
    const r = await runShell({ exec, sandbox, command, cwd: project, timeout: 30_000, signal: new AbortController().signal, keepBytes: 1 << 20, spillPath: () => path.join(project, "spill") })
    if (r.exit !== 0) throw new Error(`${command} failed (${sandbox === "off" ? "plain" : "sandboxed"}): ${r.text}`)
    return performance.now() - start
  }
  const compare = async (command: string): Promise<[number, number]> => {
    await once(command, box)
    await once(command, "off")
    const a: number[] = []
    const b: number[] = []
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) {
        a.push(await once(command, box))
        b.push(await once(command, "off"))
      } else {
        b.push(await once(command, "off"))
        a.push(await once(command, box))
      }
    }
    return [median(a), median(b)]
  }
  const cpu = async (sandbox: Sandbox | "off") => {
    const before = childCpuMs()
    for (let i = 0; i < RUNS; i++) await once("true", sandbox)
    return (childCpuMs() - before) / RUNS
  }
  try {
    const cpuSandboxedMs = await cpu(box)
    const cpuPlainMs = await cpu("off")
    const [sandboxedMs, plainMs] = await compare("true")
    const [gitSandboxedMs, gitPlainMs] = await compare("git status --short")
    return { sandboxedMs, plainMs, overheadMs: sandboxedMs - plainMs, gitSandboxedMs, gitPlainMs, gitOverheadMs: gitSandboxedMs - gitPlainMs, cpuSandboxedMs, cpuPlainMs }
  } finally {
    box.dispose()
    rmSync(project, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await runSandboxBench())

// TUI bench, in a real pseudo-terminal (util-linux `script`), on the built binary:
// - launch: spawn → the prompt is drawn (median of 5), against `node -e 0` under the same pty
//   wrapper in the same run (target: under 600 ms);
// - keystroke → screen with a 2,000-message session open: the time from writing one key to
//   the pty until the frame that shows it arrives, one key at a time (target p99 under 50 ms);
// - memory (RSS of the wright process, both threads) with that session loaded.
// Run: node scripts/build.mjs && npx tsx bench/tui/run.ts
import { spawn, execFileSync, type ChildProcess } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { databasePath, openStore } from "../../src/storage"
import { Id } from "../../src/util"

const ROOT = path.resolve(import.meta.dirname, "../..")
// WRIGHT_BENCH_BIN: another build to measure (e.g. a copy of dist/wright.mjs from before a change).
const BIN = process.env.WRIGHT_BENCH_BIN ? path.resolve(process.env.WRIGHT_BENCH_BIN) : path.join(ROOT, "bin/wright.cjs")
const MESSAGES = 2000
const LAUNCHES = 5
const KEYS = 150

export interface TuiBench {
  launchMs: number
  /** Launch until the core in the worker has booted and answered (the status line says so). */
  coreReadyMs: number
  nodeMs: number
  keystrokeP50Ms: number
  keystrokeP99Ms: number
  rssMb: number
}

interface Home {
  root: string
  project: string
  env: Record<string, string>
}

function makeHome(): Home {
  const root = mkdtempSync(path.join(os.tmpdir(), "wright-tui-bench-"))
  const project = path.join(root, "project")
  mkdirSync(project, { recursive: true })
  // A provider that is never called: the bench only opens sessions and types.
  writeFileSync(
    path.join(project, "wright.json"),
    JSON.stringify({ model: "fake/m", provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: "http://127.0.0.1:9/v1", apiKey: "k" }, models: { m: {} } } } }),
  )
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: root,
    XDG_CONFIG_HOME: path.join(root, "config"),
    XDG_DATA_HOME: path.join(root, "data"),
    XDG_STATE_HOME: path.join(root, "state"),
    XDG_CACHE_HOME: path.join(root, "cache"),
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    // The project's own provider needs a trusted folder (config/trust.ts): no trust prompt in the bench.
    WRIGHT_TRUST: "1",
  }
  return { root, project, env }
}

/** A session of `MESSAGES` messages (user/assistant pairs with a text part and, every 4th answer, a tool call). */
function seedSession(home: Home): string {
  const store = openStore(databasePath(home.env))
  const sessionID = Id.descending("ses")
  const t0 = Date.now() - MESSAGES * 1000
  store.sessions.put({ id: sessionID, slug: "bench", projectID: "global", directory: home.project, title: "Bench session", version: "0", time: { created: t0, updated: Date.now() } })
  for (let i = 0; i < MESSAGES / 2; i++) {
    const at = t0 + i * 2000
    const u = Id.ascending("msg", at)
    store.messages.put({ id: u, sessionID, role: "user", time: { created: at }, agent: "build", model: { providerID: "fake", modelID: "m" } })
    store.parts.put({ id: Id.ascending("prt", at), sessionID, messageID: u, type: "text", text: `Question ${i}: how does module ${i} work?` })
    const a = Id.ascending("msg", at + 1)
    store.messages.put({
      id: a,
      sessionID,
      role: "assistant",
      parentID: u,
      time: { created: at + 1, completed: at + 900 },
      modelID: "m",
      providerID: "fake",
      mode: "build",
      agent: "build",
      path: { cwd: home.project, root: home.project },
      cost: 0,
      tokens: { input: 1000 + i, output: 200, reasoning: 0, cache: { read: 0, write: 0 } },
      finish: "stop",
    })
    const body = `Module ${i} reads its **config**, then calls \`run()\`.\n\n\`\`\`ts\nexport function run${i}() {\n  return ${i}\n}\n\`\`\`\n- first point\n- second point`
    store.parts.put({ id: Id.ascending("prt", at + 1), sessionID, messageID: a, type: "text", text: body, time: { start: at + 1, end: at + 800 } })
    if (i % 4 === 0)
      store.parts.put({
        id: Id.ascending("prt", at + 2),
        sessionID,
        messageID: a,
        type: "tool",
        callID: `c${i}`,
        tool: "read",
        state: { status: "completed", input: { filePath: `src/m${i}.ts` }, output: "x".repeat(2000), title: `src/m${i}.ts`, metadata: {}, time: { start: at + 2, end: at + 5 } },
      })
  }
  store.close()
  return sessionID
}

interface Pty {
  child: ChildProcess
  out: string
  /** Resolves with the time at which the output first satisfied `pred`. */
  until(pred: (out: string) => boolean, timeoutMs?: number): Promise<number>
}

/** Runs `command` (a shell line) in a 120×40 pseudo-terminal. */
function pty(command: string, env: Record<string, string>, cwd: string): Pty {
  const child = spawn("script", ["-qfec", `stty rows 40 cols 120; exec ${command}`, "/dev/null"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] })
  const p: Pty = {
    child,
    out: "",
    until(pred, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pred(p.out)) {
            child.stdout!.off("data", check)
            clearTimeout(timer)
            resolve(performance.now())
          }
        }
        const timer = setTimeout(() => {
          child.stdout!.off("data", check)
          reject(new Error(`pty: timed out; output tail: ${JSON.stringify(p.out.slice(-500))}`))
        }, timeoutMs)
        child.stdout!.on("data", check)
        check()
      })
    },
  }
  child.stdout!.on("data", (d: Buffer) => (p.out += d.toString("utf8")))
  return p
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!

async function exitOf(child: ChildProcess) {
  if (child.exitCode !== null) return
  await new Promise((r) => child.once("exit", r))
}

async function quit(p: Pty) {
  p.child.stdin!.write("\x04")
  const t = setTimeout(() => p.child.kill("SIGKILL"), 8000)
  await exitOf(p.child)
  clearTimeout(t)
}

function rssOf(scriptPid: number): number {
  const pid = execFileSync("ps", ["-o", "pid=", "--ppid", String(scriptPid)], { encoding: "utf8" }).trim().split(/\s+/)[0]
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024
}

export async function runTuiBench(): Promise<TuiBench> {
  const home = makeHome()
  try {
    const sessionID = seedSession(home)
    const wright = `node ${q(BIN)}`
    const nodeRuns: number[] = []
    const launchRuns: number[] = []
    const coreRuns: number[] = []
    for (let i = 0; i < LAUNCHES; i++) {
      // Interleaved, so drift of the machine hits both alike.
      let t = performance.now()
      const n = pty("node -e 0", home.env, home.project)
      await exitOf(n.child)
      nodeRuns.push(performance.now() - t)
      t = performance.now()
      const w = pty(wright, home.env, home.project)
      launchRuns.push((await w.until((o) => o.includes("sk anything"))) - t)
      coreRuns.push((await w.until((o) => o.includes("tab agents"))) - t)
      await quit(w)
    }

    const w = pty(`${wright} -s ${sessionID}`, home.env, home.project)
    await w.until((o) => o.includes("tab agents") && o.includes("Question 999"), 30_000)
    await new Promise((r) => setTimeout(r, 500))
    const latencies: number[] = []
    let typed = ""
    for (let i = 0; i < KEYS; i++) {
      if (typed.length >= 60) {
        const from = w.out.length
        w.child.stdin!.write("\x15")
        typed = ""
        await w.until((o) => o.slice(from).includes("sk anything"))
      }
      const ch = "abcdefghijklmnopqrstuvwxy"[i % 25]!
      typed += ch
      const from = w.out.length
      const t = performance.now()
      w.child.stdin!.write(ch)
      // The frame that shows it: the text so far, then the drawn cursor.
      const seen = await w.until((o) => o.slice(from).includes(`${typed}\x1b[7m`))
      latencies.push(seen - t)
    }
    const rssMb = rssOf(w.child.pid!)
    await quit(w)
    return {
      launchMs: Math.round(median(launchRuns)),
      coreReadyMs: Math.round(median(coreRuns)),
      nodeMs: Math.round(median(nodeRuns)),
      keystrokeP50Ms: Number(percentile(latencies, 50).toFixed(1)),
      keystrokeP99Ms: Number(percentile(latencies, 99).toFixed(1)),
      rssMb: Math.round(rssMb),
    }
  } finally {
    rmSync(home.root, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const r = await runTuiBench()
  console.log(`launch to ready prompt: ${r.launchMs} ms (node -e 0: ${r.nodeMs} ms; target < 600 ms); core booted: ${r.coreReadyMs} ms`)
  console.log(`keystroke to screen, ${MESSAGES}-message session: p50 ${r.keystrokeP50Ms} ms, p99 ${r.keystrokeP99Ms} ms (target p99 < 50 ms)`)
  console.log(`memory with that session loaded: ${r.rssMb} MB RSS`)
}

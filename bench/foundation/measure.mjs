// Measuring child processes on a shared, noisy machine: wall time from spawn to exit, peak
// RSS through /usr/bin/time, medians over runs interleaved with a baseline so drift hits both.
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"

const TIME = "/usr/bin/time"
export const HAVE_TIME = existsSync(TIME)

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

/**
 * Runs `argv` to completion (killed after `timeoutMs`). With `rss`, the command runs under
 * /usr/bin/time (when present) and `rssMB` is its peak resident set. Wall time includes
 * process start-up and exit.
 */
export function measure(argv, opts = {}) {
  const rssFile = opts.rss && HAVE_TIME ? path.join(os.tmpdir(), `wright-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`) : undefined
  const [cmd, ...args] = rssFile ? [TIME, "-f", "%M", "-o", rssFile, ...argv] : argv
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] })
    const out = []
    const err = []
    child.stdout.on("data", (d) => out.push(d))
    child.stderr.on("data", (d) => err.push(d))
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      const ms = performance.now() - start
      let rssMB
      if (rssFile) {
        rssMB = Number(readFileSync(rssFile, "utf8").trim().split("\n").at(-1)) / 1024
        rmSync(rssFile, { force: true })
      }
      resolve({ ms, rssMB, code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") })
    })
  })
}

/**
 * Runs `subject` and `baseline` `runs` times each after one warm-up, alternating which goes
 * first, and returns every sample. `check` sees each subject result and throws if it is wrong.
 */
export async function interleaved({ subject, baseline, runs, check }) {
  const first = await subject()
  check?.(first)
  await baseline()
  const s = []
  const b = []
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? ["s", "b"] : ["b", "s"]
    for (const which of order) {
      if (which === "s") {
        const r = await subject()
        check?.(r)
        s.push(r)
      } else b.push(await baseline())
    }
  }
  return { subject: s, baseline: b }
}

/**
 * A fresh HOME with XDG dirs and a project directory (as test/lib/e2e.ts `sandbox()`). The env
 * is minimal on purpose: NODE_EXTRA_CA_CERTS alone adds ~35 ms to every node start here.
 */
export function sandbox() {
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "wright-bench-home-")))
  const project = path.join(home, "project")
  mkdirSync(project, { recursive: true })
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_DATA_HOME: path.join(home, "data"),
    XDG_CACHE_HOME: path.join(home, "cache"),
    XDG_STATE_HOME: path.join(home, "state"),
    NO_COLOR: "1",
    LANG: "C.UTF-8",
    // The benches write their provider into the project's config, as a user who trusts their
    // folder would: untrusted, a provider only the project defines is left out (config/trust.ts).
    WRIGHT_TRUST: "1",
  }
  return { home, project, env, dbPath: path.join(home, "data", "wright", "wright.db"), remove: () => rmSync(home, { recursive: true, force: true }) }
}

/** An OpenAI-compatible provider entry pointing at the llm-server (as test/lib/e2e.ts `providerConfig`). */
export function providerConfig(serverUrl) {
  return {
    model: "fake/chat-model",
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        options: { baseURL: `${serverUrl}/v1`, apiKey: "bench-key" },
        models: { "chat-model": { limit: { context: 200_000, output: 8_000 } } },
      },
    },
  }
}

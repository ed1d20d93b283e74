// `wright -c` to prompt-ready in a pty, on several builds, interleaved: a 10,000-message session
// (as bench/session/long.ts seeds it) and a 20-message one, each build in its own sandbox (an
// older build refuses a database a newer one migrated). Three marks per launch, from spawn:
// the prompt drawn ("sk anything"), the core answering ("tab agents"), the session's last
// answer drawn (ready), and the CPU time (user + system, both threads, from /proc) spent by
// then, which a loaded machine moves far less than the wall times. Build first, copy the build to compare against, then:
//   npx tsx bench/tui/ready-ab.ts [runs] dist /path/to/other/dist ...
// Each argument is a dist/ directory (its wright.mjs is started with node).
import { execFileSync, spawn } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
// @ts-expect-error: a plain .mjs helper shared with the foundation bench
import { median, providerConfig, sandbox } from "../foundation/measure.mjs"
import { seedLongSession } from "../session/long"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const runs = Number(process.argv[2] ?? 7)
const builds = (process.argv.length > 3 ? process.argv.slice(3) : ["dist"]).map((d) => path.resolve(ROOT, d))
// 10,002 and 20 messages: both end with an answer whose text is unique on screen.
const SIZES = [{ name: "long", count: 10_002, last: "Answer 10001." }, { name: "short", count: 21, last: "Answer 20." }]

interface Box {
  home: string
  project: string
  env: Record<string, string>
}

interface Marks {
  promptMs: number
  coreMs: number
  readyMs: number
  cpuMs: number
}

/** CPU milliseconds of the node process under `script` so far (clock ticks of 10 ms). */
function cpuOf(scriptPid: number): number {
  const pid = execFileSync("ps", ["-o", "pid=", "--ppid", String(scriptPid)], { encoding: "utf8" }).trim().split(/\s+/)[0]
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

function launch(box: Box, build: string, last: string): Promise<Marks> {
  const start = performance.now()
  const child = spawn("script", ["-qfec", `stty rows 40 cols 120; exec ${process.execPath} ${path.join(build, "wright.mjs")} -c`, "/dev/null"], {
    cwd: box.project,
    env: { ...box.env, TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "pipe"],
  })
  let out = ""
  const marks: Partial<Marks> = {}
  return new Promise<Marks>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 60 s: ${JSON.stringify(out.slice(-400))}`)), 60_000)
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString("utf8")
      const t = performance.now() - start
      marks.promptMs ??= out.includes("sk anything") ? t : undefined
      marks.coreMs ??= out.includes("tab agents") ? t : undefined
      if (marks.readyMs === undefined && marks.coreMs !== undefined && out.includes(last)) {
        marks.readyMs = t
        marks.cpuMs = cpuOf(child.pid!)
        clearTimeout(timer)
        child.stdin!.write("\x04")
        const kill = setTimeout(() => child.kill("SIGKILL"), 8000)
        child.once("exit", () => (clearTimeout(kill), resolve(marks as Marks)))
      }
    })
  })
}

const boxes = new Map<string, Box>()
for (const build of builds)
  for (const size of SIZES) {
    const box = sandbox() as Box
    writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig("http://127.0.0.1:9")))
    seedLongSession(box, size.count)
    boxes.set(`${build}:${size.name}`, box)
  }

const samples = new Map<string, Marks[]>()
try {
  // One warm-up each (migrations, the OS cache), then `runs` rounds, the order rotating.
  for (let round = -1; round < runs; round++) {
    const keys = [...boxes.keys()]
    const order = round < 0 ? keys : [...keys.slice(round % keys.length), ...keys.slice(0, round % keys.length)]
    for (const key of order) {
      const [build, size] = [key.slice(0, key.lastIndexOf(":")), key.slice(key.lastIndexOf(":") + 1)]
      const m = await launch(boxes.get(key)!, build, SIZES.find((s) => s.name === size)!.last)
      if (round >= 0) samples.set(key, [...(samples.get(key) ?? []), m])
    }
  }
  console.log(`load ${os.loadavg()[0].toFixed(1)}; medians of ${runs} (ms): prompt drawn / core answering / last answer drawn / CPU by then`)
  for (const [key, ms] of samples) {
    const med = (k: keyof Marks) => Math.round(median(ms.map((m) => m[k])))
    console.log(`${key.padEnd(50)} ${med("promptMs")} / ${med("coreMs")} / ${med("readyMs")} / ${med("cpuMs")}`)
  }
} finally {
  for (const box of boxes.values()) rmSync(box.home, { recursive: true, force: true })
}

// `npm run bench`: every benchmark, one after another, as a table and bench/results.json.
// Figures are medians; each ratio is against a baseline measured in the same run, because
// this machine is shared and noisy. Exit code 1 when a target is missed or a bench fails.
// Run some (printed only, results.json untouched): node bench/run.mjs grep edit
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const TSX = import.meta.resolve("tsx")
const TIMEOUT_MS = 5 * 60_000

const ms = (x) => `${x.toFixed(1)} ms`
const mb = (x) => `${x.toFixed(1)} MB`
const times = (x) => `${x.toFixed(2)}×`
/** A row of the table: `ok` is true/false against a target, null when there is none. */
const row = (metric, value, extra = {}) => ({ metric, value, baseline: "", target: "", ok: null, ...extra })
const check = (ok, target) => ({ ok: Boolean(ok), target })

/**
 * The benchmarks. A TypeScript bench is `{ name, file | dir, fn, rows? }`: `fn` is an exported
 * (async) function returning a JSON-able result; `dir` means the first .ts file in it that
 * exports `fn`; a missing file is skipped with a note. `rows(result)` picks what the table
 * shows; without it, every top-level number and boolean is shown. Adding a bench is one line.
 */
const BENCHES = [
  { name: "foundation", run: async () => (await import("./foundation/cli.mjs")).runCliBench(), rows: foundationRows },
  { name: "deltas", file: "bench/foundation/deltas.ts", fn: "runDeltaBench", rows: deltaRows },
  { name: "first-run", run: async () => (await import("./first-run/run.mjs")).runFirstRunBench(), rows: firstRunRows, timeoutMs: 30 * 60_000 },
  { name: "edit", file: "bench/edit/run.ts", fn: "runEditBench", rows: editRows },
  { name: "grep", file: "bench/grep/run.ts", fn: "runGrepBench", rows: grepRows },
  { name: "lsp", file: "bench/lsp/run.ts", fn: "runLspBench", rows: lspRows },
  { name: "sse", file: "bench/sse/run.ts", fn: "runSseBench", rows: sseRows },
  { name: "event-log", file: "bench/sse/run.ts", fn: "runEventLogBench", rows: eventLogRows },
  { name: "tui", dir: "bench/tui", fn: "runTuiBench", rows: tuiRows },
  { name: "session", dir: "bench/session", fn: "runStepBench", rows: sessionRows },
  { name: "long-session", file: "bench/session/long.ts", fn: "runLongSessionBench", rows: longSessionRows },
  // Seeding 3.4 GB takes minutes on a busy machine (12 sessions: ~1 min).
  { name: "server", file: "bench/session/server.ts", fn: "runServerBench", rows: serverRows, timeoutMs: 20 * 60_000 },
  { name: "cache", file: "bench/cache/prefix.ts", fn: "runPrefixBench", rows: cacheRows },
  { name: "sandbox", file: "bench/sandbox/run.ts", fn: "runSandboxBench", rows: sandboxRows },
  { name: "lease", file: "bench/lease/heartbeat.ts", fn: "runLeaseBench", rows: leaseRows },
  { name: "snapshot", file: "bench/snapshot/store.ts", fn: "runSnapshotBench", rows: snapshotRows },
  { name: "snapshot-loop", run: async () => (await import("./snapshot/loop.mjs")).runSnapshotLoopBench(), rows: snapshotLoopRows },
  { name: "snapshot-run", run: async () => (await import("./snapshot/run-hi.mjs")).runSnapshotRunBench(), rows: snapshotRunRows },
  { name: "web", file: "bench/web/run.ts", fn: "runWebBench", rows: webRows, timeoutMs: 10 * 60_000 },
  { name: "peer", run: async () => (await import("./peer/opencode.mjs")).runPeerBench(), rows: peerRows },
  { name: "plugin", run: async () => (await import("./plugin/cli.mjs")).runPluginBench(), rows: pluginRows },
]

/** `run "hi"` without plugins against the same binary with WRIGHT_PURE=1 (CPU and wall), and the cost of one plugin. */
function pluginRows(r) {
  const pm = (p) => `${p.median >= 0 ? "+" : ""}${p.median.toFixed(1)} ms (IQR ${p.q1.toFixed(1)}…${p.q3.toFixed(1)})`
  const rows = [
    row('run "hi", no plugins: CPU', ms(r.none.cpu.medianMs), { baseline: `${ms(r.none.cpu.baselineMs)} (--pure)` }),
    row('run "hi", no plugins / --pure: CPU', times(r.none.cpu.ratio), check(r.none.cpu.ratio <= 1.03, "≤ 1.03×")),
    row('run "hi", no plugins: wall', ms(r.none.wall.medianMs), { baseline: `${ms(r.none.wall.baselineMs)} (--pure)` }),
    row('run "hi", no plugins / --pure: wall', times(r.none.wall.ratio), check(r.none.wall.ratio <= 1.03, "≤ 1.03×")),
    row("no plugins − --pure, paired: CPU", pm(r.none.cpu.pairedMs)),
    row('run "hi", one TS plugin: wall', ms(r.one.wall.medianMs), { baseline: `${ms(r.one.wall.baselineMs)} (no plugins)` }),
    row("one plugin costs, paired: wall", pm(r.one.wall.pairedMs)),
    row("one plugin costs, paired: CPU", pm(r.one.cpu.pairedMs)),
  ]
  if (r.base) rows.push(row('run "hi", no plugins / WRIGHT_BASE_BIN: wall', times(r.base.wall.ratio), { baseline: `${ms(r.base.wall.baselineMs)} (base binary)` }))
  return rows
}

/** The user's first run: each scenario's default loop against features off, and the first TypeScript edit against `lsp: false`. */
function firstRunRows(r) {
  return r.scenarios.flatMap((s) => [
    row(`${r.steps}-step loop, defaults (${s.label})`, ms(s.loop.medianMs), { baseline: `${ms(s.loop.baselineMs)} (features off)` }),
    row(`${r.steps}-step loop, defaults / off (${s.label})`, times(s.loop.ratio), check(s.loop.ratio <= 1.25, "≤ 1.25×")),
    row(`first .ts edit, defaults (${s.label})`, ms(s.firstEdit.medianMs), { baseline: `${ms(s.firstEdit.baselineMs)} (lsp: false)` }),
    row(`first .ts edit − lsp: false (${s.label})`, ms(s.firstEdit.deltaMs), check(s.firstEdit.deltaMs <= 100, "≤ 100 ms")),
  ])
}

/** wright against OpenCode on the same tasks: OpenCode's median is the baseline of each row. */
function peerRows(r) {
  if (r.skipped) return [row("skipped", r.skipped)]
  const out = []
  const pair = (label, x) => {
    out.push(row(`${label} wall vs OpenCode ${r.opencode}`, ms(x.wrightMs), { baseline: `${ms(x.opencodeMs)} (OpenCode)` }))
    out.push(row(`${label}: OpenCode / wright`, times(x.speedup), check(x.speedup > 1, "> 1×")))
    if (x.wrightRssMB !== undefined) out.push(row(`${label} peak RSS`, mb(x.wrightRssMB), { baseline: `${mb(x.opencodeRssMB)} (OpenCode)`, ...check(x.wrightRssMB < x.opencodeRssMB, "< OpenCode") }))
  }
  pair("--version", r.version)
  pair('run "hi"', r.hi)
  pair(`${r.loop.steps}-step tool loop`, r.loop)
  pair(`${r.deltas.deltas} deltas`, r.deltas)
  return out
}

function foundationRows(r) {
  const rss = (x) => (r.rssMeasured ? { value: mb(x.rssMB), baseline: mb(x.baselineRssMB) } : { value: "n/a (no /usr/bin/time)" })
  return [
    row("--version wall", ms(r.version.medianMs), { baseline: ms(r.version.baselineMs) }),
    row("--version / node -e 0", times(r.version.ratio), check(r.version.ratio <= 1.2, "≤ 1.2×")),
    row('run "hi" wall', ms(r.hi.medianMs), { baseline: `${ms(r.hi.baselineMs)} (floor)` }),
    row('run "hi" / floor', times(r.hi.ratio), check(r.hi.ratio <= 1.3, "≤ 1.3×")),
    row('run "hi" peak RSS', rss(r.hi).value, { baseline: rss(r.hi).baseline ?? "", ...(r.rssMeasured ? check(r.hi.rssMB < 120, "< 120 MB") : {}) }),
    row(`${r.loop.steps}-step tool loop wall`, ms(r.loop.medianMs), { baseline: `${ms(r.loop.baselineMs)} (floor, one answer)`, ...check(r.loop.medianMs <= 900, "≤ 900 ms") }),
    row(`${r.loop.steps}-step tool loop peak RSS`, rss(r.loop).value, { baseline: rss(r.loop).baseline ?? "" }),
    row(`${r.deltas.deltas} deltas wall`, ms(r.deltas.medianMs), { baseline: `${ms(r.deltas.baselineMs)} (floor)` }),
    row(`${r.deltas.deltas} deltas / floor`, times(r.deltas.ratio), check(r.deltas.ratio <= 1.4, "≤ 1.4×")),
    row(`${r.deltas.deltas} deltas all on stdout`, r.deltas.streamedIntact ? "true" : `false (as few as ${r.deltas.fewestStdoutChars} of ${r.deltas.sentChars} chars)`, check(r.deltas.streamedIntact, "true")),
    row(`${r.deltas.deltas} deltas stored intact`, String(r.deltas.storedIntact), check(r.deltas.storedIntact, "true")),
  ]
}

function deltaRows(r) {
  return [
    row(`${r.deltas} deltas in-process, prompt`, ms(r.promptMs), { baseline: `${ms(r.sdkMs)} (AI SDK alone)` }),
    row("in-process / AI SDK alone", times(r.ratio)),
    row("every delta on bus and /event", String(r.allDelivered), check(r.allDelivered, "true")),
    row("stored text intact", String(r.storedIntact), check(r.storedIntact, "true")),
  ]
}

function leaseRows(r) {
  return [
    row(`${r.deltas} deltas, lease heartbeat + follower as shipped`, ms(r.shippedMs), { baseline: `${ms(r.offMs)} (lease timers off)` }),
    // On this shared machine run-to-run noise (±5%) exceeds the effect; the timers' own share
    // per second of streaming is the figure the 2% target is checked on.
    row("end to end: shipped / off", times(r.ratio)),
    row("end to end: 20× as often / off", times(r.stressRatio)),
    row("one renewal / one data_version check", `${r.renewUs.toFixed(1)} µs / ${r.pollUs.toFixed(1)} µs`),
    row("timers' share of each second streaming", `${(r.timerShare * 100).toFixed(4)}%`, check(r.timerShare < 0.02, "< 2%")),
    row("answers stored intact", String(r.intact), check(r.intact, "true")),
  ]
}

function editRows(r) {
  return [
    row("cases passed", `${r.passed}/${r.total}`, check(r.passed === r.total, `${r.total}/${r.total}`)),
    row("wrong-span edits", String(r.wrongSpan), check(r.wrongSpan === 0, "0")),
  ]
}

function lspRows(r) {
  return [
    row(`first edit, cold server, ${r.files} files`, ms(r.coldMs), check(r.coldMs <= 5000, "≤ 5 s")),
    row("first edit right after a read of the file", ms(r.coldAfterReadMs)),
    row("first edit after a read and a 3 s model turn", ms(r.coldAfterTurnMs)),
    row("load average during the edits", r.load ? r.load.map((l) => l.toFixed(1)).join(" → ") : "?"),
    row(`edit to result, warm server, ${r.files} files`, ms(r.warmMs), check(r.warmMs <= 1000, "≤ 1 s")),
    row("errors reported, fixes clean", String(r.diagnosticsRight), check(r.diagnosticsRight, "true")),
    row('run "hi", LSP on (lazy)', ms(r.hiMs), { baseline: `${ms(r.hiBaselineMs)} (lsp: false)` }),
    row('run "hi" LSP on / off', times(r.hiRatio), check(r.hiRatio <= 1.05, "≤ 1.05×")),
  ]
}

function grepRows(r) {
  return [row("grep tool", ms(r.toolMs), { baseline: `${ms(r.rgMs)} (rg)` }), row("grep tool / rg", times(r.ratio), check(r.ratio <= 1.5, "≤ 1.5×"))]
}

function sandboxRows(r) {
  if (r.skipped) return [row("skipped", r.skipped)]
  return [
    row("bash `true` in bwrap", ms(r.sandboxedMs), { baseline: `${ms(r.plainMs)} (unsandboxed)` }),
    row("sandbox overhead per call", ms(r.overheadMs), check(r.overheadMs <= 15, "≤ 15 ms")),
    row("bash `git status` in bwrap", ms(r.gitSandboxedMs), { baseline: `${ms(r.gitPlainMs)} (unsandboxed)` }),
    row("CPU per `true` call (children)", ms(r.cpuSandboxedMs), { baseline: `${ms(r.cpuPlainMs)} (unsandboxed)` }),
  ]
}

function sseRows(r) {
  return [
    row(`${r.clients} clients × ${r.events} events`, `${Math.round(r.eventsPerSecond).toLocaleString("en-US")} events/s`),
    row("every client, every event, in order", String(r.inOrder), check(r.inOrder, "true")),
  ]
}

function webRows(r) {
  const kb = (n) => `${n.toFixed(1)} KB`
  return [
    row("UI JavaScript, gzipped", kb(r.bundle.jsGzipKB), { baseline: `${kb(r.bundle.jsKB)} minified; CSS ${kb(r.bundle.cssGzipKB)} gzipped`, ...check(r.bundle.jsGzipKB <= 250, "≤ 250 KB") }),
    row("open to 300 sessions listed", ms(r.listMs), check(r.listMs <= 1000, "≤ 1 s")),
    row(`${r.longSession.messages}-message session: rows in the DOM`, String(r.longSession.rowsMax), { baseline: `frames p50 ${ms(r.longSession.p50)}, p95 ${ms(r.longSession.p95)} scrolling end to end` }),
    row("server RSS, UI open", `${r.memory.withUiMB.toFixed(1)} MB`, { baseline: `${r.memory.serveMB.toFixed(1)} MB (serve, listed by an API client)`, ...check(r.memory.ratio <= 1.1, "≤ 1.10×") }),
  ]
}

function eventLogRows(r) {
  return [
    row(`${r.deltas} deltas to ${r.clients} client(s), wall, log on / off`, times(r.ratio), { baseline: `${r.off} s (log off, median of ${r.rounds})`, ...check(r.ratio <= 1.05, "≤ 1.05×") }),
    row("CPU time, log on / off", times(r.cpu.ratio), { baseline: `${r.cpu.off} s` }),
    row("every event, in order", String(r.inOrder), check(r.inOrder, "true")),
  ]
}

function tuiRows(r) {
  return [
    row("launch to prompt", ms(r.launchMs), { baseline: `${ms(r.nodeMs)} (node -e 0)`, ...check(r.launchMs < 600, "< 600 ms") }),
    row("core ready", ms(r.coreReadyMs)),
    row("keystroke to screen p50", ms(r.keystrokeP50Ms)),
    row("keystroke to screen p99", ms(r.keystrokeP99Ms), check(r.keystrokeP99Ms < 50, "< 50 ms")),
    row("RSS, 2,000-message session", mb(r.rssMb)),
  ]
}

function cacheRows(r) {
  const pct = (x) => `${(x * 100).toFixed(1)}%`
  return [
    row(`${r.steps}-step session: prefix up to each breakpoint unchanged`, String(r.allPrefixesStable), check(r.allPrefixesStable, "true")),
    row("cached share of input bytes, median from step 3", pct(r.medianCachedShareFromStep3), { baseline: "0% (no breakpoints)" }),
    row("cached share of input bytes, lowest from step 3", pct(r.minCachedShareFromStep3), check(r.minCachedShareFromStep3 >= 0.9, "≥ 90%")),
    row("input price vs uncached (write 1.25×, read 0.1×)", times(r.inputPriceVsUncached), { baseline: "1.00× (uncached)" }),
  ]
}

function snapshotRows(r) {
  const sizes = [
    [r.small, 5],
    [r.large, 50],
  ]
  return [
    row(`first track, ${r.files.toLocaleString("en-US")}-file git repo`, ms(r.firstTrackMs), { baseline: `${ms(r.gitStatusMs)} (git status)`, ...check(r.firstTrackMs <= 2000, "≤ 2 s") }),
    ...sizes.flatMap(([s, target]) => {
      const n = s.files.toLocaleString("en-US")
      return [
        row(`one-file step (touch, track, changes, patch, diff), ${n} files`, ms(s.oneFileMs), { baseline: `${ms(s.spawnMs)} (git --version)`, ...check(s.oneFileMs <= target, `≤ ${target} ms`) }),
        row(`new-file step (ignore rules asked), ${n} files`, ms(s.newFileMs), { baseline: `${ms(s.spawnMs)} (git --version)` }),
        row(`command step that changed nothing, ${n} files`, ms(s.quietCommandMs), { baseline: `${ms(s.gitStatusMs)} (git status)` }),
        row(`command step that changed a file, ${n} files`, ms(s.commandMs), { baseline: `${ms(s.gitStatusMs)} (git status)` }),
      ]
    }),
    row("store after 100 one-line steps on a 5 MB file", mb(r.storeMB), { baseline: `${mb(r.looseMB)} (as loose copies)`, ...check(r.storeMB < 20, "< 20 MB") }),
  ]
}

/** The 20-step loop on the built binary, snapshots on against off. */
function snapshotLoopRows(r) {
  return [
    row(`${r.steps}-step loop, snapshots on (${r.files.toLocaleString("en-US")}-file git repo)`, ms(r.onMs), { baseline: `${ms(r.offMs)} (snapshot: false)` }),
    row("snapshots cost per tool step", ms(r.perStepMs)),
  ]
}

function snapshotRunRows(r) {
  return [row('run "hi", snapshots on', ms(r.onMs), { baseline: `${ms(r.offMs)} (snapshot: false)` }), row("on / off", times(r.ratio), check(r.ratio <= 1.05, "≤ 1.05×"))]
}

function sessionRows(r) {
  return [
    row("step N+1 start, 2,000 messages", ms(r.largeMs), { baseline: `${ms(r.smallMs)} (20 messages)` }),
    row("2,000 / 20 messages", times(r.ratio), check(r.ratio <= 2, "≤ 2×")),
    ...(r.hugeMs === undefined ? [] : [
      row("step N+1 start, 10,000 messages (~6 KB per read)", ms(r.hugeMs), { baseline: `${ms(r.smallMs)} (20 messages)` }),
      row("10,000 / 20 messages", times(r.hugeRatio), check(r.hugeRatio <= 2, "≤ 2×")),
    ]),
    ...(r.compactedMs === undefined ? [] : [
      row("step N+1 start, 10,000 messages compacted (summary + 30 kept)", ms(r.compactedMs), { baseline: `${ms(r.smallMs)} (20 messages)` }),
    ]),
  ]
}

/** `wright serve` on 100 sessions of 10,000 messages with 20 clients on /event. */
function serverRows(r) {
  const lat = (x) => `${ms(x.p50)} / ${ms(x.p99)}`
  return [
    row(`database: ${r.sessions} sessions × ${r.messages.toLocaleString("en-US")} messages`, mb(r.dbMB), { baseline: `seeded in ${r.seedSeconds.toFixed(0)} s` }),
    row("RSS after GET /session", mb(r.rssMB.afterList), { baseline: `${mb(r.rssMB.idle)} (idle, after start)`, ...check(r.rssMB.afterList - r.rssMB.idle < 20, "< idle + 20 MB") }),
    row("GET /session, all listed", `${ms(r.listMs.median)} (${r.listMs.listed})`, check(r.listMs.listed === r.sessions, `${r.sessions} listed`)),
    row(`first GET /session/:id/message (${mb(r.messagesMB)})`, ms(r.firstMessagesMs), { baseline: `${ms(r.againMessagesMs)} (again, loaded)` }),
    row("RSS after the first session read", mb(r.rssMB.afterFirstRead)),
    row(`RSS after opening ${r.browsed} more sessions (peak / after)`, `${mb(r.rssMB.browsePeak)} / ${mb(r.rssMB.afterBrowse)}`, { baseline: `${mb(r.rssMB.afterFirstRead)} (one session read)` }),
    row(`peak RSS, prompts in 3 sessions, ${r.clients} clients`, mb(r.rssMB.peak), { baseline: `${mb(r.rssMB.idle)} (idle)` }),
    row("RSS after the load", mb(r.rssMB.afterLoad)),
    row(`delta latency p50 / p99, ${r.clients} clients`, lat(r.latency.clients), { baseline: `${lat(r.latency.oneClient)} (1 client)` }),
    row("every client got every delta", String(r.latency.everyDelta), check(r.latency.everyDelta, "true")),
  ]
}

/** The 10,000-message session: run -c to the first request, its peak RSS, wright -c to prompt-ready. */
function longSessionRows(r) {
  const rss = r.rss.measured
    ? row("run -c peak RSS", `${r.rss.longMB.toFixed(0)} MB`, { baseline: `${r.rss.boundMB.toFixed(0)} MB (2.5 × ${r.dbMB.toFixed(0)} MB on disk + ${r.rss.helloMB.toFixed(0)} MB hello)`, ...check(r.rss.longMB <= r.rss.boundMB, "≤ 2.5× disk + hello") })
    : row("run -c peak RSS", "n/a")
  return [
    row(`run -c to first request, ${r.messages} messages`, ms(r.runContinue.longMs), { baseline: `${ms(r.runContinue.shortMs)} (20 messages)`, ...check(r.runContinue.longMs <= 1000, "≤ 1 s") }),
    rss,
    row("wright -c to prompt-ready", ms(r.tui.longMs), { baseline: `${ms(r.tui.shortMs)} (20 messages)`, ...check(r.tui.longMs <= 1000, "≤ 1 s") }),
  ]
}

function defaultRows(r) {
  if (!r || typeof r !== "object") return [row("result", JSON.stringify(r))]
  return Object.entries(r)
    .filter(([, v]) => typeof v === "number" || typeof v === "boolean")
    .map(([k, v]) => row(k, typeof v === "number" ? String(Number.isInteger(v) ? v : Number(v.toFixed(2))) : String(v)))
}

/** The module a TypeScript bench lives in, or undefined when it does not exist (yet). */
function locate(b) {
  if (b.file) return existsSync(path.join(ROOT, b.file)) ? b.file : undefined
  const dir = path.join(ROOT, b.dir)
  if (!existsSync(dir)) return undefined
  const exports = new RegExp(`export\\s+(async\\s+)?function\\s+${b.fn}\\b|export\\s+const\\s+${b.fn}\\b`)
  const found = readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .sort()
    .find((f) => exports.test(readFileSync(path.join(dir, f), "utf8")))
  return found ? path.join(b.dir, found) : undefined
}

/** Runs `fn` of a TypeScript bench in its own process under tsx; resolves with its result. */
function runTs(file, fn, timeoutMs = TIMEOUT_MS) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "wright-bench-result-"))
  const out = path.join(tmp, "result.json")
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX, "bench/foundation/call.ts", file, fn, out], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] })
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", reject)
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      try {
        if (code !== 0) return reject(new Error(`${file} ${fn}() failed (${signal ?? `exit ${code}`})`))
        resolve(JSON.parse(readFileSync(out, "utf8")))
      } finally {
        rmSync(tmp, { recursive: true, force: true })
      }
    })
  })
}

function printTable(rows) {
  const head = ["bench", "metric", "median / value", "baseline (same run)", "target", ""]
  const body = rows.map((r) => [r.bench, r.metric, r.value, r.baseline, r.target, r.ok === null ? "" : r.ok ? "ok" : "MISS"])
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()
  console.log(line(head))
  console.log(widths.map((w) => "-".repeat(w)).join("  "))
  for (const b of body) console.log(line(b))
}

const only = process.argv.slice(2)
const unknown = only.filter((n) => !BENCHES.some((b) => b.name === n))
if (unknown.length) {
  console.error(`unknown bench ${unknown.join(", ")}; choose from: ${BENCHES.map((b) => b.name).join(", ")}`)
  process.exit(2)
}

const started = Date.now()
const results = {}
const rows = []
for (const b of BENCHES.filter((b) => only.length === 0 || only.includes(b.name))) {
  const file = b.run ? undefined : locate(b)
  if (!b.run && !file) {
    const where = b.file ?? `${b.dir}/*.ts exporting ${b.fn}`
    results[b.name] = { skipped: `${where} not found` }
    rows.push({ bench: b.name, ...row("skipped", `${where} not found`) })
    continue
  }
  process.stderr.write(`bench: ${b.name}${file ? ` (${file} ${b.fn})` : ""}…\n`)
  const t0 = Date.now()
  try {
    const result = b.run ? await b.run() : await runTs(file, b.fn, b.timeoutMs)
    results[b.name] = { seconds: (Date.now() - t0) / 1000, result }
    for (const r of (b.rows ?? defaultRows)(result)) rows.push({ bench: b.name, ...r })
  } catch (e) {
    results[b.name] = { error: String(e?.stack ?? e) }
    rows.push({ bench: b.name, ...row("error", String(e?.message ?? e).split("\n")[0], { ok: false }) })
  }
}

console.log(`\nwright benchmarks · node ${process.version} · ${os.cpus().length} cores · load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} · ${((Date.now() - started) / 1000).toFixed(0)} s\n`)
printTable(rows)
const missed = rows.filter((r) => r.ok === false)
console.log(missed.length ? `\n${missed.length} target(s) missed: ${missed.map((r) => `${r.bench}: ${r.metric}`).join("; ")}` : "\nall targets met")

// Only a full run replaces bench/results.json, so the file always holds one complete run.
if (only.length === 0) writeFileSync(
  path.join(ROOT, "bench/results.json"),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      loadavg: os.loadavg(),
      seconds: (Date.now() - started) / 1000,
      table: rows,
      missed: missed.map((r) => `${r.bench}: ${r.metric}`),
      benches: results,
    },
    null,
    2,
  ) + "\n",
)
process.exitCode = missed.length ? 1 : 0

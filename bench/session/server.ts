// The server with many long sessions on disk and many event-stream clients (issue 16, part 4):
// - seeds 100 sessions of 10,000 messages each (~6 KB of read output per tool turn, as
//   bench/session/long.ts): one session through the storage layer, then 99 copies made with SQL
//   (new ids by a suffix per copy), so seeding takes seconds, not minutes;
// - starts the built binary (`wright serve --port 0`) on that database and reads its RSS from
//   /proc (VmRSS now, VmHWM the peak);
// - times `GET /session` (all 100 listed) and the first `GET /session/:id/message` of one session;
// - opens 10 more sessions in turn (RSS while and after: only the sessions in use should stay);
// - connects 1, then 20 SSE clients to `/event` and drives prompts in 3 of the sessions at once;
//   the scripted model sends paced text deltas, each carrying its send time, and every client
//   notes when each arrives: latency from the model's write to each client (p50/p99), 20 clients
//   against 1 client (the same-run baseline).
// Memory must follow the sessions in use, not those on disk; latency must stay flat with 20 clients.
// Run: node scripts/build.mjs && npx tsx bench/session/server.ts
import { spawn, type ChildProcess } from "node:child_process"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import Database from "better-sqlite3"
// @ts-expect-error: a plain .mjs helper shared with the foundation bench
import { providerConfig, sandbox } from "../foundation/measure.mjs"
import { databasePath } from "../../src/storage"
import { seedLongSession } from "./long"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
// WRIGHT_BENCH_BIN: another build to compare (e.g. a copy of bin/ + dist/ from before a change).
const BIN = process.env.WRIGHT_BENCH_BIN ?? path.join(ROOT, "bin/wright.cjs")
/** Sessions a client opens one after another (each a full GET /session/:id/message). */
const BROWSE = 10
const SESSIONS = Number(process.env.WRIGHT_BENCH_SESSIONS ?? 100)
const MESSAGES = Number(process.env.WRIGHT_BENCH_MESSAGES ?? 10_000)
const CLIENTS = 20
const BUSY = 3
const DELTAS = 150
const DELTA_GAP_MS = 4

const wallNow = () => performance.timeOrigin + performance.now()

/** Copies the database's one session `copies` times (ids get a two-digit suffix), then drops the original. */
export function copySessions(file: string, copies: number) {
  const db = new Database(file)
  // Gigabytes through a WAL would be written twice (log, then checkpoint): a rollback journal,
  // no syncs. wright switches the file back to WAL when it opens it.
  db.pragma("journal_mode = DELETE")
  db.pragma("synchronous = OFF")
  const original = (db.prepare("SELECT id FROM session").get() as { id: string }).id
  // "-" + two digits in place of the last three characters: unique per copy, and never an id of
  // the original (base62 has no "-").
  const at = (k: number) => (x: string) => `substr(${x}, 1, length(${x}) - 3) || '-${String(k).padStart(2, "0")}'`
  db.transaction(() => {
    for (let k = 0; k < copies; k++) {
      const f = at(k)
      const ses = `(${f("@o")})`
      db.prepare(
        `INSERT INTO session (id, project_id, parent_id, directory, title, time_created, time_updated, time_archived, data)
         SELECT ${ses}, project_id, parent_id, directory, title || ' ${k}', time_created, time_updated + ${k}, time_archived,
                json_set(data, '$.id', ${ses}, '$.title', title || ' ${k}', '$.time.updated', time_updated + ${k}) FROM session WHERE id = @o`,
      ).run({ o: original })
      db.prepare(
        `INSERT INTO message (id, session_id, time_created, data)
         SELECT ${f("id")}, ${ses}, time_created,
                CASE WHEN json_extract(data, '$.role') = 'assistant'
                  THEN json_set(data, '$.id', ${f("id")}, '$.sessionID', ${ses}, '$.parentID', ${f("json_extract(data, '$.parentID')")})
                  ELSE json_set(data, '$.id', ${f("id")}, '$.sessionID', ${ses}) END
         FROM message WHERE session_id = @o`,
      ).run({ o: original })
      db.prepare(
        `INSERT INTO part (id, message_id, session_id, data, compacted, output)
         SELECT ${f("id")}, ${f("message_id")}, ${ses}, json_set(data, '$.id', ${f("id")}, '$.messageID', ${f("message_id")}, '$.sessionID', ${ses}), compacted, output
         FROM part WHERE session_id = @o`,
      ).run({ o: original })
    }
    db.prepare("DELETE FROM part WHERE session_id = ?").run(original)
    db.prepare("DELETE FROM message WHERE session_id = ?").run(original)
    db.prepare("DELETE FROM session WHERE id = ?").run(original)
  })()
  db.close()
}

/** A Chat Completions server: drains the request, then streams DELTAS text deltas DELTA_GAP_MS apart, each `@<send time>;`. */
async function pacedModel() {
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
  const chunk = (delta: object, finish: string | null = null) => frame({ id: "c", created: 1, model: "chat-model", choices: [{ index: 0, delta, finish_reason: finish }] })
  let requests = 0
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests++
    req.resume()
    req.on("end", async () => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(chunk({ role: "assistant", content: "" }))
      for (let i = 0; i < DELTAS; i++) {
        await new Promise((r) => setTimeout(r, DELTA_GAP_MS))
        res.write(chunk({ content: `@${wallNow().toFixed(3)};` }))
      }
      res.write(chunk({}, "stop").replace('"finish_reason":"stop"}]', '"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1}'))
      res.end("data: [DONE]\n\n")
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests, close: () => new Promise<void>((r) => server.close(() => r())) }
}

/** An /event reader: for every delta `@t;` notes arrival − t (ms). Resolves once connected. */
async function eventClient(url: string, signal: AbortSignal) {
  const latencies: number[] = []
  let deltas = 0
  let connected!: () => void
  const ready = new Promise<void>((r) => (connected = r))
  const done = (async () => {
    const res = await fetch(url, { signal })
    const decoder = new TextDecoder()
    let buffer = ""
    try {
      for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
        const arrived = wallNow()
        buffer += decoder.decode(bytes, { stream: true })
        let end: number
        while ((end = buffer.indexOf("\n\n")) !== -1) {
          // A logged event's frame starts with its `id:` line.
          const data = buffer.slice(buffer.startsWith("id:") ? buffer.indexOf("\n") + 7 : 6, end)
          buffer = buffer.slice(end + 2)
          if (data.startsWith('{"type":"server.connected"')) connected()
          if (!data.startsWith('{"type":"message.part.delta"')) continue
          deltas++
          for (const m of data.matchAll(/@(\d+\.\d+);/g)) latencies.push(arrived - Number(m[1]))
        }
      }
    } catch (e) {
      if (!signal.aborted) throw e
    }
  })()
  await ready
  return { latencies, deltas: () => deltas, done }
}

function percentile(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN
}

const median = (xs: number[]) => percentile(xs, 0.5)

function rssMB(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN)
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 }
}

async function startServe(box: { project: string; env: Record<string, string> }): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0"], { cwd: box.project, env: box.env, stdio: ["ignore", "pipe", "pipe"] })
  let err = ""
  child.stderr!.on("data", (d) => (err += d))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ""
    const timer = setTimeout(() => reject(new Error(`wright serve: no URL in 60 s\n${out}\n${err}`)), 60_000)
    child.on("exit", (code) => reject(new Error(`wright serve exited ${code}\n${err}`)))
    child.stdout!.on("data", (d) => {
      out += d
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    })
  })
  return { url, child }
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now()
  const v = await fn()
  return [performance.now() - t0, v]
}

/** Prompts `ids` at once while `clients` readers listen; returns every client's delta latencies. */
async function promptRound(base: string, ids: string[], clients: number) {
  const controller = new AbortController()
  const readers = await Promise.all(Array.from({ length: clients }, () => eventClient(`${base}/event`, controller.signal)))
  await Promise.all(
    ids.map(async (id) => {
      const res = await fetch(`${base}/session/${id}/message`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ parts: [{ type: "text", text: "one more question" }] }) })
      if (!res.ok) throw new Error(`prompt ${id}: HTTP ${res.status} ${await res.text()}`)
      await res.arrayBuffer()
    }),
  )
  // Deltas still in flight reach the clients within a few event-loop turns.
  await new Promise((r) => setTimeout(r, 300))
  controller.abort()
  await Promise.all(readers.map((r) => r.done))
  const expected = ids.length * DELTAS
  return { latencies: readers.flatMap((r) => r.latencies), everyDelta: readers.every((r) => r.latencies.length === expected) }
}

export interface ServerBench {
  sessions: number
  messages: number
  dbMB: number
  seedSeconds: number
  clients: number
  rssMB: { idle: number; afterList: number; afterFirstRead: number; browsePeak: number; afterBrowse: number; peak: number; afterLoad: number }
  browsed: number
  listMs: { first: number; median: number; listed: number }
  firstMessagesMs: number
  againMessagesMs: number
  messagesMB: number
  latency: { oneClient: { p50: number; p99: number }; clients: { p50: number; p99: number }; everyDelta: boolean }
}

export async function runServerBench(): Promise<ServerBench> {
  const llm = await pacedModel()
  const box = sandbox()
  let serve: { url: string; child: ChildProcess } | undefined
  try {
    writeFileSync(path.join(box.project, "wright.json"), JSON.stringify(providerConfig(llm.url)))
    const seedStart = performance.now()
    seedLongSession(box, MESSAGES)
    const file = databasePath(box.env)
    copySessions(file, SESSIONS)
    const seedSeconds = (performance.now() - seedStart) / 1000
    const dbMB = statSync(file).size / 1024 / 1024

    serve = await startServe(box)
    const base = serve.url
    const pid = serve.child.pid!
    // Let start-up settle before the idle figure.
    await fetch(`${base}/global/health`).then((r) => r.arrayBuffer())
    await new Promise((r) => setTimeout(r, 500))
    const idle = rssMB(pid).rss

    const list = async () => (await (await fetch(`${base}/session`)).json()) as { id: string }[]
    const [firstList, listed] = await timed(list)
    const listTimes: number[] = []
    for (let i = 0; i < 5; i++) listTimes.push((await timed(list))[0])
    const afterList = rssMB(pid).rss
    const ids = listed.map((s) => s.id)

    const read = async (id: string) => new Uint8Array(await (await fetch(`${base}/session/${id}/message`)).arrayBuffer())
    const [firstMessagesMs, body] = await timed(() => read(ids[0]!))
    const afterFirstRead = rssMB(pid).rss
    const [againMessagesMs] = await timed(() => read(ids[0]!))
    // A client opens ten more sessions in turn: memory should follow the sessions in use, not these.
    let browsePeak = 0
    for (const id of ids.slice(1, 1 + BROWSE)) {
      await read(id)
      browsePeak = Math.max(browsePeak, rssMB(pid).rss)
    }
    await new Promise((r) => setTimeout(r, 1000))
    const afterBrowse = rssMB(pid).rss

    // Warm the busy sessions (loaded once, as a client opening them would), then the rounds.
    const busy = ids.slice(0, BUSY)
    await promptRound(base, busy, 1)
    const one = await promptRound(base, busy, 1)
    const many = await promptRound(base, busy, CLIENTS)
    const peak = rssMB(pid).peak
    await new Promise((r) => setTimeout(r, 1000))
    const afterLoad = rssMB(pid).rss
    return {
      sessions: listed.length,
      messages: MESSAGES,
      dbMB,
      seedSeconds,
      clients: CLIENTS,
      rssMB: { idle, afterList, afterFirstRead, browsePeak, afterBrowse, peak, afterLoad },
      browsed: Math.min(BROWSE, ids.length - 1),
      listMs: { first: firstList, median: median(listTimes), listed: listed.length },
      firstMessagesMs,
      againMessagesMs,
      messagesMB: body.byteLength / 1024 / 1024,
      latency: {
        oneClient: { p50: median(one.latencies), p99: percentile(one.latencies, 0.99) },
        clients: { p50: median(many.latencies), p99: percentile(many.latencies, 0.99) },
        everyDelta: one.everyDelta && many.everyDelta,
      },
    }
  } finally {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill("SIGTERM")
      await new Promise((r) => serve!.child.once("exit", r))
    }
    await llm.close()
    box.remove()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runServerBench(), null, 2))
}

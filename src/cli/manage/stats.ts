// `wright stats`: what the agent cost and did, from the database alone (no config, no core):
// tokens and cost per model, per day and per project, and which tools ran how often.
import path from "node:path"
import type { AssistantMessage, Message } from "../../protocol"
import { databasePath, openStore } from "../../storage"
import { terminalSafe } from "../../util"
import { bold, dim, tildify, UserError } from "../ui"

export interface StatsArgs {
  days?: number
  tools?: number
  models?: number
  /** A directory: only sessions started in it or below it. "" means the current directory. */
  project?: string
  format: "table" | "json"
}

interface Totals {
  messages: number
  cost: number
  tokens: { input: number; output: number; reasoning: number; cache: { read: number; write: number } }
}

export interface Stats {
  /** Local calendar days, oldest first; `from` is undefined without --days. */
  range: { days?: number; from?: string; to: string }
  project?: string
  sessions: number
  totals: Totals
  models: Array<{ model: string } & Totals>
  days: Array<{ day: string } & Totals>
  projects: Array<{ directory: string; sessions: number } & Totals>
  tools: Array<{ tool: string; calls: number; errors: number }>
}

const zero = (): Totals => ({ messages: 0, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } })

function add(t: Totals, m: AssistantMessage) {
  t.messages++
  t.cost += m.cost ?? 0
  t.tokens.input += m.tokens?.input ?? 0
  t.tokens.output += m.tokens?.output ?? 0
  t.tokens.reasoning += m.tokens?.reasoning ?? 0
  t.tokens.cache.read += m.tokens?.cache?.read ?? 0
  t.tokens.cache.write += m.tokens?.cache?.write ?? 0
}

/** The local calendar day of a time, as YYYY-MM-DD. */
export function localDay(time: number): string {
  const d = new Date(time)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`
}

export function computeStats(file: string, args: StatsArgs, now = Date.now(), cwd = process.cwd()): Stats {
  if (args.days !== undefined && (!Number.isInteger(args.days) || args.days < 1)) throw new UserError(`--days must be a whole number of days, 1 or more (got ${args.days})`)
  for (const flag of ["tools", "models"] as const) {
    const v = args[flag]
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new UserError(`--${flag} must be a whole number, 0 or more (got ${v})`)
  }
  const project = args.project === undefined ? undefined : path.resolve(cwd, args.project || ".")
  let since = 0
  if (args.days !== undefined) {
    const start = new Date(now)
    start.setHours(0, 0, 0, 0)
    start.setDate(start.getDate() - (args.days - 1))
    since = start.getTime()
  }
  const store = openStore(file)
  try {
    const where = ["m.time_created >= ?"]
    const params: unknown[] = [since]
    if (project) where.push("(s.directory = ? OR substr(s.directory, 1, ?) = ?)"), params.push(project, project.length + 1, project + path.sep)
    const rows = store.db
      .prepare(`SELECT m.data AS data, s.directory AS directory, s.id AS session FROM message m JOIN session s ON s.id = m.session_id WHERE ${where.join(" AND ")} ORDER BY m.id`)
      .all(...params) as Array<{ data: string; directory: string; session: string }>
    const totals = zero()
    const models = new Map<string, Totals>()
    const days = new Map<string, Totals>()
    const projects = new Map<string, { sessions: Set<string> } & Totals>()
    const sessions = new Set<string>()
    for (const row of rows) {
      const m = JSON.parse(row.data) as Message
      sessions.add(row.session)
      let p = projects.get(row.directory)
      if (!p) projects.set(row.directory, (p = { ...zero(), sessions: new Set() }))
      p.sessions.add(row.session)
      if (m.role !== "assistant") continue
      add(totals, m)
      const model = `${m.providerID}/${m.modelID}`
      if (!models.has(model)) models.set(model, zero())
      add(models.get(model)!, m)
      const day = localDay(m.time.created)
      if (!days.has(day)) days.set(day, zero())
      add(days.get(day)!, m)
      add(p, m)
    }
    const tools = store.db
      .prepare(
        `SELECT json_extract(p.data, '$.tool') AS tool, count(*) AS calls,
           sum(json_extract(p.data, '$.state.status') = 'error') AS errors
         FROM part p JOIN message m ON m.id = p.message_id JOIN session s ON s.id = p.session_id
         WHERE json_extract(p.data, '$.type') = 'tool' AND ${where.join(" AND ")}
         GROUP BY tool ORDER BY calls DESC, tool ASC`,
      )
      .all(...params) as Array<{ tool: string; calls: number; errors: number }>
    const byCost = <T extends Totals>(a: T, b: T) => b.cost - a.cost || b.messages - a.messages
    const modelList = [...models].map(([model, t]) => ({ model, ...t })).sort(byCost)
    return {
      range: { ...(args.days !== undefined ? { days: args.days, from: localDay(since) } : {}), to: localDay(now) },
      ...(project ? { project } : {}),
      sessions: sessions.size,
      totals,
      models: args.models !== undefined ? modelList.slice(0, args.models) : modelList,
      days: [...days].map(([day, t]) => ({ day, ...t })).sort((a, b) => a.day.localeCompare(b.day)),
      projects: [...projects]
        .map(([directory, { sessions: s, ...t }]) => ({ directory, sessions: s.size, ...t }))
        .sort(byCost),
      tools: tools.slice(0, args.tools ?? 10).map((t) => ({ tool: t.tool, calls: t.calls, errors: t.errors ?? 0 })),
    }
  } finally {
    store.close()
  }
}

export async function stats(args: StatsArgs) {
  const s = computeStats(databasePath(process.env), args)
  if (args.format === "json") return void process.stdout.write(JSON.stringify(s, null, 2) + "\n")
  process.stdout.write(render(s))
}

const num = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : String(n))
const usd = (n: number) => `$${n.toFixed(n && n < 0.01 ? 4 : 2)}`

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd()
  return [dim(line(head)), ...rows.map(line)]
}

const cells = (t: Totals) => [String(t.messages), num(t.tokens.input), num(t.tokens.output), `${num(t.tokens.cache.read)}/${num(t.tokens.cache.write)}`, usd(t.cost)]
const HEAD = ["replies", "input", "output", "cache r/w", "cost"]

export function render(s: Stats): string {
  const scope = [s.range.days ? `the last ${s.range.days} day${s.range.days === 1 ? "" : "s"} (${s.range.from} to ${s.range.to})` : "all time", s.project ? terminalSafe(tildify(s.project)) : "every project"]
  const out = [bold(`wright stats: ${scope.join(", ")}`), ""]
  if (s.sessions === 0) return out.concat("No sessions in this range.", "").join("\n")
  const t = s.totals
  out.push(`${s.sessions} sessions, ${t.messages} model replies, ${usd(t.cost)}; tokens: ${num(t.tokens.input)} in, ${num(t.tokens.output)} out, ${num(t.tokens.reasoning)} reasoning, cache ${num(t.tokens.cache.read)} read / ${num(t.tokens.cache.write)} written`, "")
  if (s.models.length) out.push(bold("By model"), ...table(["model", ...HEAD], s.models.map((m) => [terminalSafe(m.model), ...cells(m)])), "")
  if (s.days.length) out.push(bold("By day"), ...table(["day", ...HEAD], s.days.map((d) => [d.day, ...cells(d)])), "")
  if (s.projects.length) out.push(bold("By project"), ...table(["project", "sessions", ...HEAD], s.projects.map((p) => [terminalSafe(tildify(p.directory)), String(p.sessions), ...cells(p)])), "")
  if (s.tools.length) out.push(bold("Tools"), ...table(["tool", "calls", "errors"], s.tools.map((x) => [terminalSafe(x.tool), String(x.calls), String(x.errors)])), "")
  return out.join("\n")
}

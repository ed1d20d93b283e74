// `wright ps`: every live wright process's registry file (session/live.ts) joined with the
// database: which sessions run where, in what state, on which model, for how long, at what cost.
import { readLive, type LiveSession } from "../../session"
import { databasePath, openDatabase } from "../../storage"
import { terminalSafe, xdg } from "../../util"
import { dim, tildify } from "../ui"

export interface PsEntry {
  id: string
  pid: number
  state: LiveSession["state"]
  waiting?: "permission" | "question"
  directory: string
  worktree?: { name: string; branch: string }
  parentID?: string
  title: string
  model?: string
  /** When the session entered its state, and when it was created (ms). */
  time: { since: number; created: number }
  cost: number
}

const ORDER = { waiting: 0, working: 1, failed: 2, idle: 3 } as const

/** The sessions of live processes, waiting ones first. */
export function listRunning(env: NodeJS.ProcessEnv = process.env): PsEntry[] {
  const live = readLive(xdg(env).data)
  if (!live.length) return []
  const db = openDatabase(databasePath(env))
  try {
    const session = db.prepare(`SELECT data FROM session WHERE id = ?`)
    const cost = db.prepare(`SELECT COALESCE(SUM(json_extract(data, '$.cost')), 0) AS cost FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'assistant'`)
    const model = db.prepare(`SELECT json_extract(data, '$.providerID') AS p, json_extract(data, '$.modelID') AS m, json_extract(data, '$.model.providerID') AS up, json_extract(data, '$.model.modelID') AS um FROM message WHERE session_id = ? ORDER BY id DESC LIMIT 1`)
    const out: PsEntry[] = []
    for (const proc of live) {
      for (const [id, s] of Object.entries(proc.sessions)) {
        const row = session.get(id) as { data: string } | undefined
        if (!row) continue
        const info = JSON.parse(row.data) as { directory: string; title: string; parentID?: string; worktree?: { name: string; branch: string }; time: { created: number } }
        const m = model.get(id) as { p?: string; m?: string; up?: string; um?: string } | undefined
        const ref = m?.p && m.m ? `${m.p}/${m.m}` : m?.up && m.um ? `${m.up}/${m.um}` : undefined
        out.push({
          id,
          pid: proc.pid,
          state: s.state,
          ...(s.waiting ? { waiting: s.waiting } : {}),
          directory: info.directory,
          ...(info.worktree ? { worktree: info.worktree } : {}),
          ...(info.parentID ? { parentID: info.parentID } : {}),
          title: info.title,
          ...(ref ? { model: ref } : {}),
          time: { since: s.since, created: info.time.created },
          cost: (cost.get(id) as { cost: number }).cost,
        })
      }
    }
    return out.sort((a, b) => ORDER[a.state] - ORDER[b.state] || a.time.since - b.time.since)
  } finally {
    db.close()
  }
}

export async function ps(args: { format: "table" | "json"; all?: boolean }) {
  const list = listRunning().filter((e) => args.all || e.state !== "idle")
  const out = (s: string) => void process.stdout.write(s)
  if (args.format === "json") return out(JSON.stringify(list, null, 2) + "\n")
  if (!list.length) return out(args.all ? "No wright sessions are running on this machine.\n" : "No wright session is working or waiting (wright ps --all shows idle ones too).\n")
  const rows = list.map((e) => [
    e.id,
    e.state === "waiting" ? `waiting (${e.waiting})` : e.state,
    terminalSafe(tildify(e.directory)) + (e.worktree ? ` [${terminalSafe(e.worktree.branch)}]` : ""),
    terminalSafe(e.title).slice(0, 50),
    e.model ?? "-",
    elapsed(Date.now() - e.time.since),
    `$${e.cost.toFixed(4)}`,
  ])
  const head = ["ID", "STATE", "PROJECT", "TITLE", "MODEL", "TIME", "COST"]
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")
  out(dim(line(head)) + "\n")
  for (const r of rows) out(line(r) + "\n")
}

function elapsed(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
}

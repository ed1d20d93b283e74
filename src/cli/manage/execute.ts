import type { Session } from "../../protocol"
import { withLocalClient } from "../local"
import { bold, dim, UserError } from "../ui"

const out = (s: string) => void process.stdout.write(s)

export async function models(args: { dir?: string; provider?: string; verbose?: boolean; format: "table" | "json" }) {
  await withLocalClient(args, async (client) => {
    const { providers, default: defaults } = await client.config.providers()
    const chosen = args.provider ? providers.filter((p) => p.id === args.provider) : providers
    if (args.provider && chosen.length === 0)
      throw new UserError(`no usable provider "${args.provider}". Usable: ${providers.map((p) => p.id).join(", ") || "none (set an API key or configure a provider)"}`)
    if (args.format === "json") return out(JSON.stringify(chosen, null, 2) + "\n")
    if (chosen.length === 0) {
      out("No provider is usable yet. Set an API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, …) or add a provider to wright.json.\n")
      return
    }
    for (const p of chosen) {
      for (const m of Object.values(p.models).sort((a, b) => a.id.localeCompare(b.id))) {
        const mark = defaults[p.id] === m.id ? " (default)" : ""
        const extra = args.verbose ? dim(`  context ${m.limit.context}, output ${m.limit.output}, $${m.cost.input}/$${m.cost.output} per 1M in/out`) : ""
        out(`${p.id}/${m.id}${mark}${extra}\n`)
      }
    }
  })
}

export async function sessionList(args: { dir?: string; maxCount?: number; format: "table" | "json" }) {
  await withLocalClient(args, async (client) => {
    const sessions = await client.session.list({ roots: true, ...(args.maxCount ? { limit: args.maxCount } : {}) })
    if (args.format === "json") return out(JSON.stringify(sessions, null, 2) + "\n")
    if (sessions.length === 0) return out("No sessions in this project yet.\n")
    for (const s of sessions) out(`${s.id}  ${dim(when(s))}  ${s.title}\n`)
  })
}

export async function sessionDelete(args: { dir?: string; id: string }) {
  await withLocalClient(args, async (client) => {
    try {
      await client.session.delete(args.id)
    } catch (e) {
      if ((e as Error).name === "NotFoundError") throw new UserError(`no session with id ${args.id}`)
      throw e
    }
    out(`Deleted ${args.id}\n`)
  })
}

export async function exportSession(args: { dir?: string; sessionID?: string }) {
  await withLocalClient(args, async (client) => {
    let id = args.sessionID
    if (!id) {
      const [latest] = await client.session.list({ roots: true, limit: 1 })
      if (!latest) throw new UserError("no session to export in this project")
      id = latest.id
    }
    let info: Session
    try {
      info = await client.session.get(id)
    } catch (e) {
      if ((e as Error).name === "NotFoundError") throw new UserError(`no session with id ${id}`)
      throw e
    }
    const messages = await client.session.messages(id)
    out(JSON.stringify({ info, messages }, null, 2) + "\n")
  })
}

export async function agentList(args: { dir?: string }) {
  await withLocalClient(args, async (client) => {
    for (const a of await client.agent.list()) {
      if (a.hidden) continue
      out(`${bold(a.name)} ${dim(`(${a.mode})`)}${a.description ? `  ${a.description}` : ""}\n`)
    }
  })
}

function when(s: Session) {
  return new Date(s.time.updated).toISOString().replace("T", " ").slice(0, 16)
}

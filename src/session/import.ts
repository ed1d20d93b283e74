// `wright import`: a session exported by `wright export` or `opencode export` ({info, messages:
// [{info, parts}]}) joins this project's sessions. The shapes are the same, so the rows are
// stored as they come, read through the protocol schemas (fields wright does not know are
// dropped, a part of a type it does not know is left out and counted). Re-importing a session
// moves it to this project and adds what it lacks; messages and parts already here are kept.
import { z } from "zod"
import { Message, Part, Session, type MessageWithParts } from "../protocol"
import type { Store } from "../storage"

/** The file is not an export; the message names the file and the field. */
export class ImportError extends Error {
  override name = "ImportError"
}

export interface ImportResult {
  session: Session
  messages: { added: number; kept: number }
  parts: { added: number; kept: number }
  /** Parts left out, by type, because wright has no such part. */
  skipped: Record<string, number>
}

const ExportFile = z.object({
  info: z.unknown(),
  messages: z.array(z.object({ info: z.unknown(), parts: z.array(z.unknown()) })),
})

// OpenCode writes fields wright's Session lacks (agent, model, path) and may leave out ones it has.
const ImportedSession = Session.extend({ slug: z.string().optional(), version: z.string().optional() })

export interface ImportDeps {
  store: Store
  projectID: string
  directory: string
  version: string
}

/** Validates the whole file first, then writes it in one transaction: a bad file writes nothing. */
export function importSession(deps: ImportDeps, data: unknown, file: string): ImportResult {
  const top = ExportFile.safeParse(data)
  if (!top.success) throw new ImportError(`${file} is not a session export ({info, messages: [{info, parts}]}): ${describe(top.error)}`)
  const info = parse(ImportedSession, top.data.info, file, "info")
  const skipped: Record<string, number> = {}
  const messages: MessageWithParts[] = top.data.messages.map((m, i) => {
    const message = parse(Message, m.info, file, `messages[${i}].info`)
    if (message.sessionID !== info.id) throw new ImportError(`${file}: messages[${i}].info.sessionID is ${message.sessionID}, not the session's id ${info.id}`)
    const parts: Part[] = []
    m.parts.forEach((raw, j) => {
      const type = typeof (raw as { type?: unknown })?.type === "string" ? (raw as { type: string }).type : undefined
      if (type && !PART_TYPES.has(type)) {
        skipped[type] = (skipped[type] ?? 0) + 1
        return
      }
      const part = parse(Part, raw, file, `messages[${i}].parts[${j}]`)
      if (part.messageID !== message.id) throw new ImportError(`${file}: messages[${i}].parts[${j}].messageID is ${part.messageID}, not its message's id ${message.id}`)
      parts.push(part)
    })
    return { info: message, parts }
  })

  const { store } = deps
  const existing = store.sessions.get(info.id)
  // A child whose parent is not here would be hidden from every list: it comes in as a root.
  const parentID = info.parentID && store.sessions.get(info.parentID) ? info.parentID : undefined
  const { parentID: _dropped, ...rest } = info
  const session: Session = {
    ...rest,
    ...(parentID ? { parentID } : {}),
    slug: info.slug ?? existing?.slug ?? info.id.slice(-8).toLowerCase(),
    version: info.version ?? deps.version,
    projectID: deps.projectID,
    directory: deps.directory,
  }
  const result: ImportResult = { session, messages: { added: 0, kept: 0 }, parts: { added: 0, kept: 0 }, skipped }
  store.transaction(() => {
    store.sessions.put(session)
    for (const m of messages) {
      if (store.messages.get(m.info.id)) result.messages.kept++
      else store.messages.put(m.info), result.messages.added++
      const have = new Set(store.parts.ofMessage(m.info.id).map((p) => p.id))
      for (const p of m.parts) {
        if (have.has(p.id)) result.parts.kept++
        else store.parts.put(p), result.parts.added++
      }
    }
  })
  return result
}

const PART_TYPES = new Set(Part.options.map((o) => o.shape.type.value as string))

function parse<T extends z.ZodType>(schema: T, value: unknown, file: string, at: string): z.infer<T> {
  const r = schema.safeParse(value)
  if (!r.success) throw new ImportError(`${file}: ${at} is not valid: ${describe(r.error, at)}`)
  return r.data
}

function describe(error: z.ZodError, at?: string): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${[at, ...i.path.map((k) => (typeof k === "number" ? `[${k}]` : String(k)))].filter(Boolean).join(".").replace(/\.\[/g, "[")}: ${i.message}`)
    .join("; ")
}

import type { ModelMessage, ToolResultPart } from "ai"
import type { AssistantMessage, MessageWithParts, Part, ToolPart } from "../protocol"

export const CLEARED_TOOL_OUTPUT = "[Old tool result content cleared]"
export const INTERRUPTED_TOOL = "[Tool execution was interrupted]"
export const COMPACTION_QUESTION = "What did we do so far?"
export const USER_TOOL_NOTE = "The following tool was executed by the user"

/** The model messages are for; `attachments: false` (the catalogue says it takes no images or PDFs) replaces those with a note. */
export interface ModelRefWithMedia {
  providerID: string
  modelID: string
  attachments?: boolean
}

/**
 * Converts stored history into the AI SDK's model messages. One assistant message is one
 * step: its text, reasoning and tool calls become an assistant message, followed by a tool
 * message carrying every call's result.
 */
export function toModelMessages(history: MessageWithParts[], model: ModelRefWithMedia): ModelMessage[] {
  const out: ModelMessage[] = []
  for (const msg of history) {
    if (msg.info.role === "user") {
      const content = userContent(msg.parts, model)
      if (content.length) out.push({ role: "user", content })
      continue
    }
    if (!sendable(msg.info, msg.parts)) continue
    out.push(...assistantMessages(msg.info, msg.parts, model))
  }
  return out
}

const CONVERTED = Symbol("wright.model-messages")
type Cached = MessageWithParts & { [CONVERTED]?: { version: number; model: string; out: ModelMessage[] } }

/** What the cache asks the live history (see history.ts). */
export interface ChangeSource {
  /** The version of one entry (a new number at every change to it). */
  versionOf(entry: MessageWithParts): number
  /** The newest version given so far. */
  version(): number
  /** Entries changed after version `since`; undefined when not known. */
  changedSince(sessionID: string, since: number): MessageWithParts[] | undefined
}

/**
 * The last conversion of one conversation (found by its first entry, so it goes when the
 * session's entries do): its entries, where each one's messages end in `out`, an entry's
 * index, and the version it saw.
 */
interface Previous {
  model: string
  version: number
  entries: MessageWithParts[]
  ends: number[]
  out: ModelMessage[]
  at: Map<MessageWithParts, number>
}

/**
 * toModelMessages with each stored message's conversion kept on the history entry until the
 * message changes (its version changes with every change), so a step of a long session only
 * converts what is new. Unchanged messages yield the very same objects, which lets the
 * provider-prompt conversion downstream reuse its work too. The last conversion of each session
 * is kept as well: the entries before the first one added, removed or changed since are taken
 * from it as they are, found by comparing the lists, without reading each entry again (in a
 * long session, reading 10,000 entries scattered in the heap was most of a step's start).
 */
export function createModelMessageCache(source: ChangeSource) {
  const previous = new WeakMap<MessageWithParts, Previous>()

  /** How many leading entries of `history` are as the last conversion saw them. */
  function unchanged(prev: Previous, history: MessageWithParts[], sessionID: string): number {
    const changed = source.changedSince(sessionID, prev.version)
    if (!changed) return 0
    const max = Math.min(history.length, prev.entries.length)
    let same = 0
    while (same < max && history[same] === prev.entries[same]) same++
    for (const entry of changed) {
      const i = prev.at.get(entry)
      if (i !== undefined && i < same) same = i
    }
    return same
  }

  return function convert(history: MessageWithParts[], model: ModelRefWithMedia): ModelMessage[] {
    const key = `${model.providerID}/${model.modelID}/${model.attachments ?? ""}`
    const head = history[0]
    const found = head && previous.get(head)
    const same = found && found.model === key ? unchanged(found, history, head.info.sessionID) : 0
    // The last conversion's arrays are cut where it stops being valid and extended in place.
    const prev: Previous = same ? found! : { model: key, version: 0, entries: [], ends: [], out: [], at: new Map() }
    prev.version = source.version()
    for (let i = same; i < prev.entries.length; i++) if (prev.at.get(prev.entries[i]!) === i) prev.at.delete(prev.entries[i]!)
    prev.out.length = same ? prev.ends[same - 1]! : 0
    prev.entries.length = prev.ends.length = same
    let repeated = false
    for (let i = same; i < history.length; i++) {
      const msg = history[i] as Cached
      const v = source.versionOf(msg)
      let hit = msg[CONVERTED]
      if (!hit || hit.version !== v || hit.model !== key) msg[CONVERTED] = hit = { version: v, model: key, out: toModelMessages([msg], model) }
      for (const m of hit.out) prev.out.push(m)
      prev.ends.push(prev.out.length)
      prev.entries.push(msg)
      // An entry listed twice cannot be told apart by position: the next call starts afresh.
      if (prev.at.has(msg)) repeated = true
      prev.at.set(msg, i)
    }
    if (head && !repeated) previous.set(head, prev)
    else if (head) previous.delete(head)
    // The caller may change its array (reminders): it gets a copy.
    return prev.out.slice()
  }
}

function userContent(parts: Part[], model: ModelRefWithMedia) {
  const content: Extract<ModelMessage, { role: "user" }>["content"] & unknown[] = []
  for (const part of parts) {
    if (part.type === "text" && !part.ignored && part.text) content.push({ type: "text", text: part.text })
    else if (part.type === "file") {
      const data = dataOf(part.url)
      if (!data) continue
      if (model.attachments === false && (part.mime.startsWith("image/") || part.mime === "application/pdf")) {
        const what = part.mime === "application/pdf" ? "PDF" : "image"
        content.push({ type: "text", text: `[The ${what} ${part.filename ?? "attachment"} was not sent: the model ${model.providerID}/${model.modelID} does not accept ${what}s. Tell the user so; if it does accept them, "attachment": true on the model in the provider config turns this off.]` })
        continue
      }
      if (part.mime.startsWith("image/")) content.push({ type: "image", image: data, mediaType: part.mime })
      else if (part.mime === "application/pdf") content.push({ type: "file", data, mediaType: part.mime, filename: part.filename })
    } else if (part.type === "compaction") content.push({ type: "text", text: COMPACTION_QUESTION })
    else if (part.type === "subtask") content.push({ type: "text", text: USER_TOOL_NOTE })
  }
  return content
}

function dataOf(url: string): string | undefined {
  const m = /^data:[^;,]*(?:;[^,]*)?;base64,(.*)$/s.exec(url)
  return m ? m[1] : undefined
}

/** A failed step is dropped, unless it was aborted after producing something real. */
function sendable(info: AssistantMessage, parts: Part[]) {
  if (!info.error) return true
  if (info.error.name !== "MessageAbortedError") return false
  return parts.some((p) => (p.type === "text" && p.text.trim()) || p.type === "tool")
}

function assistantMessages(info: AssistantMessage, parts: Part[], model: { providerID: string; modelID: string }): ModelMessage[] {
  const sameModel = info.providerID === model.providerID && info.modelID === model.modelID
  const content: Extract<ModelMessage, { role: "assistant" }>["content"] & unknown[] = []
  const results: ToolResultPart[] = []
  for (const part of parts) {
    if (part.type === "text" && part.text) content.push({ type: "text", text: part.text })
    // Reasoning carries provider signatures that another model would reject.
    else if (part.type === "reasoning" && part.text && sameModel)
      content.push({ type: "reasoning", text: part.text, providerOptions: part.metadata as never })
    else if (part.type === "tool") {
      content.push({ type: "tool-call", toolCallId: part.callID, toolName: part.tool, input: part.state.input })
      results.push(toolResult(part))
    }
  }
  const out: ModelMessage[] = []
  if (content.length) out.push({ role: "assistant", content })
  if (results.length) out.push({ role: "tool", content: results })
  return out
}

function toolResult(part: ToolPart): ToolResultPart {
  const base = { type: "tool-result" as const, toolCallId: part.callID, toolName: part.tool }
  const state = part.state
  if (state.status === "completed") {
    if (state.time.compacted) return { ...base, output: { type: "text", value: CLEARED_TOOL_OUTPUT } }
    const media = (state.attachments ?? []).flatMap((a) => {
      const data = dataOf(a.url)
      return data ? [{ type: "media" as const, data, mediaType: a.mime }] : []
    })
    if (media.length) return { ...base, output: { type: "content", value: [{ type: "text", text: state.output }, ...media] } }
    return { ...base, output: { type: "text", value: state.output } }
  }
  if (state.status === "error") return { ...base, output: { type: "error-text", value: state.error } }
  return { ...base, output: { type: "error-text", value: INTERRUPTED_TOOL } }
}

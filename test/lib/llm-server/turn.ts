// Turns a scripted Reply into the protocol-neutral pieces every wire format is built from:
// delta lists, tool calls with ids and argument chunks, a finish reason and full usage numbers.
import type { Finish, Reply, ToolCallReply } from "./types"

export interface TurnCall {
  id: string
  /** The script set `id` (Gemini sends a call id only then). */
  scriptedId: boolean
  name: string
  args: string
  chunks: string[]
}

export interface Turn {
  reasoning: string[]
  text: string[]
  calls: TurnCall[]
  finish: Finish
  usage: { input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number }
  /** Whether the script set these, so formats can leave out details nobody asked for. */
  has: { reasoning: boolean; cacheWrite: boolean }
}

/** A short stable text id for the server, so ids from two servers never collide. */
export function idSource(): (prefix: string) => string {
  const base = Math.random().toString(36).slice(2, 8)
  let n = 0
  return (prefix) => `${prefix}${base}${(++n).toString(36).padStart(3, "0")}`
}

export function buildTurn(reply: Reply, newId: (prefix: string) => string, callPrefix: string): Turn {
  const calls = (reply.toolCalls ?? []).map((call) => buildCall(call, newId, callPrefix))
  const u = reply.usage ?? {}
  return {
    reasoning: deltas(reply.reasoning),
    text: deltas(reply.text),
    calls,
    finish: reply.finish ?? (calls.length > 0 ? "tool-calls" : "stop"),
    usage: {
      input: u.input ?? 10,
      output: u.output ?? 5,
      reasoning: u.reasoning ?? 0,
      cacheRead: u.cacheRead ?? 0,
      cacheWrite: u.cacheWrite ?? 0,
    },
    has: { reasoning: u.reasoning !== undefined, cacheWrite: u.cacheWrite !== undefined },
  }
}

function buildCall(call: ToolCallReply, newId: (prefix: string) => string, prefix: string): TurnCall {
  const args = call.raw ?? JSON.stringify(call.input ?? {})
  return { id: call.id ?? newId(prefix), scriptedId: call.id !== undefined, name: call.name, args, chunks: split(args, 3) }
}

function deltas(value: string | string[] | undefined): string[] {
  if (value === undefined) return []
  if (Array.isArray(value)) return value
  if (value === "") return []
  return splitWords(value, 3)
}

/** Splits at word boundaries into at most `parts` deltas; joining them gives the input back. */
export function splitWords(value: string, parts: number): string[] {
  const words = value.match(/\S*\s*/g)?.filter((w) => w !== "") ?? [value]
  if (words.length <= 1) return split(value, Math.min(parts, 2))
  const size = Math.ceil(words.length / parts)
  const out: string[] = []
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(""))
  return out
}

/** Splits by code points (never inside a surrogate pair) into at most `parts` non-empty pieces. */
export function split(value: string, parts: number): string[] {
  const chars = Array.from(value)
  if (chars.length === 0) return [""]
  const size = Math.ceil(chars.length / parts)
  const out: string[] = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""))
  return out
}

/** Parses tool arguments for the formats that carry an object; malformed JSON is passed on as the string. */
export function parsedArgs(args: string): unknown {
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

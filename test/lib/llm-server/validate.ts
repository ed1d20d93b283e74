// Checks a scripted Reply up front, so a typo in a test fails at `script()` with the field named
// instead of surfacing later as a puzzling provider error.
import type { Reply } from "./types"

const KEYS = new Set(["reasoning", "text", "toolCalls", "finish", "usage", "error", "cutAfter", "hang", "delayMs", "gate", "expect"])
const FINISH = new Set(["stop", "tool-calls", "length", "content-filter"])
const USAGE = new Set(["input", "output", "reasoning", "cacheRead", "cacheWrite"])

export function validateReply(reply: unknown, where: string): asserts reply is Reply {
  const fail = (field: string, what: string): never => {
    throw new Error(`llm-server: ${where}: '${field}' ${what}`)
  }
  if (typeof reply !== "object" || reply === null || Array.isArray(reply)) fail("reply", "must be an object like { text: \"hi\" }")
  const r = reply as Record<string, unknown>
  for (const key of Object.keys(r)) if (!KEYS.has(key)) fail(key, `is not a Reply field (known: ${[...KEYS].join(", ")})`)
  for (const key of ["reasoning", "text"]) {
    const v = r[key]
    if (v !== undefined && typeof v !== "string" && !(Array.isArray(v) && v.every((x) => typeof x === "string"))) {
      fail(key, "must be a string or an array of strings")
    }
  }
  if (r.toolCalls !== undefined) {
    if (!Array.isArray(r.toolCalls)) fail("toolCalls", "must be an array")
    ;(r.toolCalls as unknown[]).forEach((c, i) => {
      const call = c as Record<string, unknown>
      if (typeof call !== "object" || call === null) fail(`toolCalls[${i}]`, "must be an object { name, input }")
      if (typeof call.name !== "string" || call.name === "") fail(`toolCalls[${i}].name`, "must be a non-empty string")
      if (call.id !== undefined && typeof call.id !== "string") fail(`toolCalls[${i}].id`, "must be a string")
      if (call.raw !== undefined && typeof call.raw !== "string") fail(`toolCalls[${i}].raw`, "must be a string")
    })
  }
  if (r.finish !== undefined && !FINISH.has(r.finish as string)) fail("finish", `must be one of ${[...FINISH].join(", ")}`)
  if (r.usage !== undefined) {
    if (typeof r.usage !== "object" || r.usage === null) fail("usage", "must be an object")
    for (const [k, v] of Object.entries(r.usage as object)) {
      if (!USAGE.has(k)) fail(`usage.${k}`, `is not a Usage field (known: ${[...USAGE].join(", ")})`)
      if (!isCount(v)) fail(`usage.${k}`, "must be a non-negative integer")
    }
  }
  if (r.error !== undefined) {
    const e = r.error as Record<string, unknown>
    if (typeof e !== "object" || e === null) fail("error", "must be an object { status, body?, headers? }")
    if (!Number.isInteger(e.status) || (e.status as number) < 400 || (e.status as number) > 599) fail("error.status", "must be an HTTP error status (400-599)")
    if (e.headers !== undefined && (typeof e.headers !== "object" || e.headers === null)) fail("error.headers", "must be an object of strings")
  }
  if (r.cutAfter !== undefined && !isCount(r.cutAfter)) fail("cutAfter", "must be a non-negative integer")
  if (r.hang !== undefined && r.hang !== "before-headers" && r.hang !== "after-headers" && !isCount(r.hang)) {
    fail("hang", "must be \"before-headers\", \"after-headers\" or a non-negative integer")
  }
  if (r.cutAfter !== undefined && r.hang !== undefined) fail("cutAfter", "cannot be combined with 'hang'")
  if (r.delayMs !== undefined && !isCount(r.delayMs)) fail("delayMs", "must be a non-negative integer")
  if (r.gate !== undefined) {
    const g = r.gate as Record<string, unknown>
    if (typeof g !== "object" || g === null || !isCount(g.after)) fail("gate.after", "must be a non-negative integer")
    if (typeof (g.open as Promise<unknown> | undefined)?.then !== "function") fail("gate.open", "must be a promise")
    if (r.hang !== undefined || r.cutAfter !== undefined || r.error !== undefined) fail("gate", "cannot be combined with 'hang', 'cutAfter' or 'error'")
  }
  if (r.expect !== undefined && typeof r.expect !== "function") fail("expect", "must be a function")
}

function isCount(v: unknown): boolean {
  return Number.isInteger(v) && (v as number) >= 0
}

import type { LanguageModelUsage } from "ai"
import { computeCost, maxOutputTokens, usageToTokens, type ModelInfo } from "../llm"
import { emptyTokens, type Tokens } from "../protocol"
import type { SessionRecords } from "./records"

/** Splits the SDK's usage into OpenCode's token fields (input excludes cache; output excludes reasoning). */
export function tokensOf(usage: LanguageModelUsage | undefined): Tokens {
  const t = usage ? usageToTokens(usage) : { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 }
  return {
    total: t.input + t.output + t.reasoning + t.cacheRead + t.cacheWrite,
    input: t.input,
    output: t.output,
    reasoning: t.reasoning,
    cache: { read: t.cacheRead, write: t.cacheWrite },
  }
}

export function costOf(info: ModelInfo, t: Tokens): number {
  return computeCost(info, { input: t.input, output: t.output, reasoning: t.reasoning, cacheRead: t.cache.read, cacheWrite: t.cache.write })
}

export function addTokens(a: Tokens, b: Tokens): Tokens {
  return {
    total: (a.total ?? 0) + (b.total ?? 0),
    input: a.input + b.input,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    cache: { read: a.cache.read + b.cache.read, write: a.cache.write + b.cache.write },
  }
}

/** Tokens the conversation may use before it must be compacted; 0 disables the check. */
export function usableContext(info: ModelInfo, reserved?: number): number {
  if (!info.limit.context) return 0
  const out = maxOutputTokens(info)
  if (info.limit.input) return Math.max(0, info.limit.input - (reserved ?? Math.min(20_000, out)))
  return Math.max(0, info.limit.context - (reserved ?? out))
}

export function isOverflow(tokens: Tokens, info: ModelInfo, opts: { auto?: boolean; reserved?: number } = {}): boolean {
  if (opts.auto === false) return false
  const usable = usableContext(info, opts.reserved)
  if (!usable) return false
  const used = tokens.total || tokens.input + tokens.output + tokens.reasoning + tokens.cache.read + tokens.cache.write
  return used >= usable
}

/** ProcessorDeps.onUsage: adds a finished step's cost and tokens to the session's totals (a session gone meanwhile is skipped). */
export function sessionUsage(records: SessionRecords) {
  return (sessionID: string, cost: number, tokens: Tokens): void =>
    void records.update(sessionID, (s) => ({ ...s, cost: (s.cost ?? 0) + cost, tokens: addTokens(s.tokens ?? emptyTokens(), tokens) }))
}

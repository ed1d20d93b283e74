import type { LanguageModelUsage } from "ai"
import { computeCost, maxOutputTokens, type ModelInfo } from "../llm"
import type { Tokens } from "../protocol"

/** Splits the SDK's usage into OpenCode's token fields (input excludes cache; output excludes reasoning). */
export function tokensOf(usage: LanguageModelUsage | undefined): Tokens {
  const cacheRead = usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens ?? 0
  const cacheWrite = usage?.inputTokenDetails?.cacheWriteTokens ?? 0
  const reasoning = usage?.outputTokenDetails?.reasoningTokens ?? usage?.reasoningTokens ?? 0
  const inputTotal = usage?.inputTokens ?? 0
  const input = usage?.inputTokenDetails?.noCacheTokens ?? Math.max(0, inputTotal - cacheRead - cacheWrite)
  const outputTotal = usage?.outputTokens ?? 0
  const output = usage?.outputTokenDetails?.textTokens ?? Math.max(0, outputTotal - reasoning)
  return { total: input + output + reasoning + cacheRead + cacheWrite, input, output, reasoning, cache: { read: cacheRead, write: cacheWrite } }
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

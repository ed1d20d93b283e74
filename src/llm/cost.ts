import type { LanguageModelUsage } from "ai"
import type { ModelInfo } from "./types"

/** OpenCode's OUTPUT_TOKEN_MAX: no request asks for more output than this. */
export const OUTPUT_TOKEN_MAX = 32_000

export function maxOutputTokens(info: ModelInfo): number {
  return Math.min(info.limit.output, OUTPUT_TOKEN_MAX) || OUTPUT_TOKEN_MAX
}

/** Token counts as an assistant message stores them: `input` without cache, `output` without reasoning. */
export interface TokenUsage {
  input: number
  output: number
  reasoning: number
  cacheRead: number
  cacheWrite: number
}

/**
 * The AI SDK reports `inputTokens` with cache reads and writes included and `outputTokens`
 * with reasoning included; split them so each is billed once at its own rate.
 */
export function usageToTokens(usage: LanguageModelUsage): TokenUsage {
  const cacheRead = usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens ?? 0
  const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens ?? 0
  const reasoning = usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens ?? 0
  const input = usage.inputTokenDetails?.noCacheTokens ?? Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite)
  const output = usage.outputTokenDetails?.textTokens ?? Math.max(0, (usage.outputTokens ?? 0) - reasoning)
  return { input, output, reasoning, cacheRead, cacheWrite }
}

const LONG_CONTEXT = 200_000

/** USD. Reasoning is billed at the output rate; long-context rates apply past 200K prompt tokens. */
export function computeCost(info: ModelInfo, usage: TokenUsage): number {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite
  const rate = prompt > LONG_CONTEXT && info.cost.over200k ? info.cost.over200k : info.cost
  const total =
    usage.input * rate.input +
    (usage.output + usage.reasoning) * rate.output +
    usage.cacheRead * rate.cacheRead +
    usage.cacheWrite * rate.cacheWrite
  return total / 1_000_000
}

// The bundled model catalog: plain data, used for cost accounting and context-overflow checks.
// Prices are USD per 1M tokens from the providers' published price lists as best known when
// written; none of it is authoritative, and config `provider.<id>.models.<id>` overrides any
// field. Limits are tokens. Aliases resolve to the same entry under another API id.

export interface CatalogCost {
  input: number
  output: number
  cacheRead?: number
  cacheWrite?: number
}

export interface CatalogModel {
  id: string
  name: string
  family?: string
  release?: string
  limit: { context: number; input?: number; output: number }
  cost: CatalogCost
  /** Rates once the prompt passes 200K tokens. */
  over200k?: CatalogCost
  /** Defaults: toolCall true, temperature true, reasoning false, attachment false. */
  reasoning?: boolean
  attachment?: boolean
  temperature?: boolean
  toolCall?: boolean
  aliases?: string[]
}

export interface CatalogProvider {
  id: string
  name: string
  npm: string
  env: string[]
  /** Base URL, always explicit so that no SDK falls back to reading process.env itself. */
  api: string
  models: CatalogModel[]
}

const COMPAT = "@ai-sdk/openai-compatible"
const vision = { reasoning: true, attachment: true }
const gptReasoning = { ...vision, temperature: false }
const gpt5Limit = { context: 400_000, input: 272_000, output: 128_000 }
const gemini = { context: 1_048_576, output: 65_536 }

export const CATALOG: CatalogProvider[] = [
  {
    id: "anthropic",
    name: "Anthropic",
    npm: "@ai-sdk/anthropic",
    env: ["ANTHROPIC_API_KEY"],
    api: "https://api.anthropic.com/v1",
    models: [
      { id: "claude-opus-4-5-20251101", aliases: ["claude-opus-4-5"], name: "Claude Opus 4.5", family: "claude-opus", release: "2025-11-24", limit: { context: 200_000, output: 64_000 }, cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }, ...vision },
      { id: "claude-opus-4-1-20250805", aliases: ["claude-opus-4-1"], name: "Claude Opus 4.1", family: "claude-opus", release: "2025-08-05", limit: { context: 200_000, output: 32_000 }, cost: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }, ...vision },
      { id: "claude-opus-4-20250514", aliases: ["claude-opus-4-0"], name: "Claude Opus 4", family: "claude-opus", release: "2025-05-22", limit: { context: 200_000, output: 32_000 }, cost: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }, ...vision },
      { id: "claude-sonnet-4-5-20250929", aliases: ["claude-sonnet-4-5"], name: "Claude Sonnet 4.5", family: "claude-sonnet", release: "2025-09-29", limit: { context: 200_000, output: 64_000 }, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, ...vision },
      { id: "claude-sonnet-4-20250514", aliases: ["claude-sonnet-4-0"], name: "Claude Sonnet 4", family: "claude-sonnet", release: "2025-05-22", limit: { context: 200_000, output: 64_000 }, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, ...vision },
      { id: "claude-haiku-4-5-20251001", aliases: ["claude-haiku-4-5"], name: "Claude Haiku 4.5", family: "claude-haiku", release: "2025-10-15", limit: { context: 200_000, output: 64_000 }, cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }, ...vision },
      { id: "claude-3-7-sonnet-20250219", aliases: ["claude-3-7-sonnet-latest"], name: "Claude Sonnet 3.7", family: "claude-sonnet", release: "2025-02-24", limit: { context: 200_000, output: 64_000 }, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, ...vision },
      { id: "claude-3-5-sonnet-20241022", aliases: ["claude-3-5-sonnet-latest"], name: "Claude Sonnet 3.5 v2", family: "claude-sonnet", release: "2024-10-22", limit: { context: 200_000, output: 8_192 }, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, attachment: true },
      { id: "claude-3-5-haiku-20241022", aliases: ["claude-3-5-haiku-latest"], name: "Claude Haiku 3.5", family: "claude-haiku", release: "2024-10-22", limit: { context: 200_000, output: 8_192 }, cost: { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 }, attachment: true },
    ],
  },
  {
    id: "openai",
    name: "OpenAI",
    npm: "@ai-sdk/openai",
    env: ["OPENAI_API_KEY"],
    api: "https://api.openai.com/v1",
    models: [
      { id: "gpt-5.1", name: "GPT-5.1", family: "gpt", release: "2025-11-13", limit: gpt5Limit, cost: { input: 1.25, output: 10, cacheRead: 0.125 }, ...gptReasoning },
      { id: "gpt-5.1-codex", name: "GPT-5.1 Codex", family: "gpt-codex", release: "2025-11-13", limit: gpt5Limit, cost: { input: 1.25, output: 10, cacheRead: 0.125 }, ...gptReasoning },
      { id: "gpt-5", name: "GPT-5", family: "gpt", release: "2025-08-07", limit: gpt5Limit, cost: { input: 1.25, output: 10, cacheRead: 0.125 }, ...gptReasoning },
      { id: "gpt-5-codex", name: "GPT-5 Codex", family: "gpt-codex", release: "2025-09-15", limit: gpt5Limit, cost: { input: 1.25, output: 10, cacheRead: 0.125 }, ...gptReasoning },
      { id: "gpt-5-mini", name: "GPT-5 Mini", family: "gpt-mini", release: "2025-08-07", limit: gpt5Limit, cost: { input: 0.25, output: 2, cacheRead: 0.025 }, ...gptReasoning },
      { id: "gpt-5-nano", name: "GPT-5 Nano", family: "gpt-nano", release: "2025-08-07", limit: gpt5Limit, cost: { input: 0.05, output: 0.4, cacheRead: 0.005 }, ...gptReasoning },
      { id: "gpt-4.1", name: "GPT-4.1", family: "gpt", release: "2025-04-14", limit: { context: 1_047_576, output: 32_768 }, cost: { input: 2, output: 8, cacheRead: 0.5 }, attachment: true },
      { id: "gpt-4.1-mini", name: "GPT-4.1 Mini", family: "gpt-mini", release: "2025-04-14", limit: { context: 1_047_576, output: 32_768 }, cost: { input: 0.4, output: 1.6, cacheRead: 0.1 }, attachment: true },
      { id: "gpt-4.1-nano", name: "GPT-4.1 Nano", family: "gpt-nano", release: "2025-04-14", limit: { context: 1_047_576, output: 32_768 }, cost: { input: 0.1, output: 0.4, cacheRead: 0.025 }, attachment: true },
      { id: "gpt-4o", name: "GPT-4o", family: "gpt", release: "2024-05-13", limit: { context: 128_000, output: 16_384 }, cost: { input: 2.5, output: 10, cacheRead: 1.25 }, attachment: true },
      { id: "gpt-4o-mini", name: "GPT-4o Mini", family: "gpt-mini", release: "2024-07-18", limit: { context: 128_000, output: 16_384 }, cost: { input: 0.15, output: 0.6, cacheRead: 0.075 }, attachment: true },
      { id: "o3", name: "o3", family: "o", release: "2025-04-16", limit: { context: 200_000, output: 100_000 }, cost: { input: 2, output: 8, cacheRead: 0.5 }, ...gptReasoning },
      { id: "o4-mini", name: "o4-mini", family: "o-mini", release: "2025-04-16", limit: { context: 200_000, output: 100_000 }, cost: { input: 1.1, output: 4.4, cacheRead: 0.275 }, ...gptReasoning },
      { id: "o3-mini", name: "o3-mini", family: "o-mini", release: "2025-01-31", limit: { context: 200_000, output: 100_000 }, cost: { input: 1.1, output: 4.4, cacheRead: 0.55 }, reasoning: true, temperature: false },
      { id: "codex-mini-latest", name: "Codex Mini", family: "gpt-codex", release: "2025-05-16", limit: { context: 200_000, output: 100_000 }, cost: { input: 1.5, output: 6, cacheRead: 0.375 }, ...gptReasoning },
    ],
  },
  {
    id: "google",
    name: "Google",
    npm: "@ai-sdk/google",
    env: ["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
    api: "https://generativelanguage.googleapis.com/v1beta",
    models: [
      { id: "gemini-3-pro-preview", name: "Gemini 3 Pro Preview", family: "gemini-pro", release: "2025-11-18", limit: gemini, cost: { input: 2, output: 12, cacheRead: 0.2 }, over200k: { input: 4, output: 18, cacheRead: 0.4 }, ...vision },
      { id: "gemini-2.5-pro", name: "Gemini 2.5 Pro", family: "gemini-pro", release: "2025-06-17", limit: gemini, cost: { input: 1.25, output: 10, cacheRead: 0.31 }, over200k: { input: 2.5, output: 15, cacheRead: 0.625 }, ...vision },
      { id: "gemini-2.5-flash", name: "Gemini 2.5 Flash", family: "gemini-flash", release: "2025-06-17", limit: gemini, cost: { input: 0.3, output: 2.5, cacheRead: 0.075 }, ...vision },
      { id: "gemini-2.5-flash-lite", name: "Gemini 2.5 Flash Lite", family: "gemini-flash-lite", release: "2025-07-22", limit: gemini, cost: { input: 0.1, output: 0.4, cacheRead: 0.025 }, ...vision },
      { id: "gemini-2.0-flash", name: "Gemini 2.0 Flash", family: "gemini-flash", release: "2025-02-05", limit: { context: 1_048_576, output: 8_192 }, cost: { input: 0.1, output: 0.4, cacheRead: 0.025 }, attachment: true },
    ],
  },
  {
    id: "openrouter",
    name: "OpenRouter",
    npm: COMPAT,
    env: ["OPENROUTER_API_KEY"],
    api: "https://openrouter.ai/api/v1",
    models: [
      { id: "anthropic/claude-sonnet-4.5", name: "Claude Sonnet 4.5", family: "claude-sonnet", release: "2025-09-29", limit: { context: 1_000_000, output: 64_000 }, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, over200k: { input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5 }, ...vision },
      { id: "anthropic/claude-opus-4.5", name: "Claude Opus 4.5", family: "claude-opus", release: "2025-11-24", limit: { context: 200_000, output: 64_000 }, cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }, ...vision },
      { id: "anthropic/claude-haiku-4.5", name: "Claude Haiku 4.5", family: "claude-haiku", release: "2025-10-15", limit: { context: 200_000, output: 64_000 }, cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }, ...vision },
      { id: "openai/gpt-5", name: "GPT-5", family: "gpt", release: "2025-08-07", limit: gpt5Limit, cost: { input: 1.25, output: 10, cacheRead: 0.125 }, ...gptReasoning },
      { id: "openai/gpt-5-mini", name: "GPT-5 Mini", family: "gpt-mini", release: "2025-08-07", limit: gpt5Limit, cost: { input: 0.25, output: 2, cacheRead: 0.025 }, ...gptReasoning },
      { id: "openai/gpt-5-nano", name: "GPT-5 Nano", family: "gpt-nano", release: "2025-08-07", limit: gpt5Limit, cost: { input: 0.05, output: 0.4, cacheRead: 0.005 }, ...gptReasoning },
      { id: "google/gemini-3-pro-preview", name: "Gemini 3 Pro Preview", family: "gemini-pro", release: "2025-11-18", limit: gemini, cost: { input: 2, output: 12, cacheRead: 0.2 }, over200k: { input: 4, output: 18, cacheRead: 0.4 }, ...vision },
      { id: "google/gemini-2.5-pro", name: "Gemini 2.5 Pro", family: "gemini-pro", release: "2025-06-17", limit: gemini, cost: { input: 1.25, output: 10, cacheRead: 0.31 }, over200k: { input: 2.5, output: 15, cacheRead: 0.625 }, ...vision },
      { id: "google/gemini-2.5-flash", name: "Gemini 2.5 Flash", family: "gemini-flash", release: "2025-06-17", limit: gemini, cost: { input: 0.3, output: 2.5, cacheRead: 0.075 }, ...vision },
      { id: "x-ai/grok-code-fast-1", name: "Grok Code Fast 1", family: "grok", release: "2025-08-28", limit: { context: 256_000, output: 10_000 }, cost: { input: 0.2, output: 1.5, cacheRead: 0.02 }, reasoning: true },
      { id: "qwen/qwen3-coder", name: "Qwen3 Coder 480B", family: "qwen", release: "2025-07-23", limit: { context: 262_144, output: 65_536 }, cost: { input: 0.22, output: 0.95 } },
      { id: "z-ai/glm-4.6", name: "GLM 4.6", family: "glm", release: "2025-09-30", limit: { context: 202_752, output: 128_000 }, cost: { input: 0.4, output: 1.75 }, reasoning: true },
      { id: "openai/gpt-oss-120b", name: "gpt-oss-120b", family: "gpt-oss", release: "2025-08-05", limit: { context: 131_072, output: 32_768 }, cost: { input: 0.05, output: 0.25 }, reasoning: true },
    ],
  },
  {
    id: "groq",
    name: "Groq",
    npm: COMPAT,
    env: ["GROQ_API_KEY"],
    api: "https://api.groq.com/openai/v1",
    models: [
      { id: "openai/gpt-oss-120b", name: "gpt-oss-120b", family: "gpt-oss", release: "2025-08-05", limit: { context: 131_072, output: 65_536 }, cost: { input: 0.15, output: 0.75 }, reasoning: true },
      { id: "openai/gpt-oss-20b", name: "gpt-oss-20b", family: "gpt-oss", release: "2025-08-05", limit: { context: 131_072, output: 65_536 }, cost: { input: 0.075, output: 0.3 }, reasoning: true },
      { id: "moonshotai/kimi-k2-instruct-0905", name: "Kimi K2 0905", family: "kimi", release: "2025-09-05", limit: { context: 262_144, output: 16_384 }, cost: { input: 1, output: 3 } },
      { id: "qwen/qwen3-32b", name: "Qwen3 32B", family: "qwen", release: "2025-04-29", limit: { context: 131_072, output: 40_960 }, cost: { input: 0.29, output: 0.59 }, reasoning: true },
      { id: "llama-3.3-70b-versatile", name: "Llama 3.3 70B", family: "llama", release: "2024-12-06", limit: { context: 131_072, output: 32_768 }, cost: { input: 0.59, output: 0.79 } },
    ],
  },
  {
    id: "deepseek",
    name: "DeepSeek",
    npm: COMPAT,
    env: ["DEEPSEEK_API_KEY"],
    api: "https://api.deepseek.com/v1",
    models: [
      { id: "deepseek-chat", name: "DeepSeek Chat", family: "deepseek", release: "2025-09-29", limit: { context: 128_000, output: 8_192 }, cost: { input: 0.28, output: 0.42, cacheRead: 0.028 } },
      { id: "deepseek-reasoner", name: "DeepSeek Reasoner", family: "deepseek-thinking", release: "2025-09-29", limit: { context: 128_000, output: 64_000 }, cost: { input: 0.28, output: 0.42, cacheRead: 0.028 }, reasoning: true },
    ],
  },
  {
    id: "mistral",
    name: "Mistral",
    npm: COMPAT,
    env: ["MISTRAL_API_KEY"],
    api: "https://api.mistral.ai/v1",
    models: [
      { id: "mistral-large-latest", name: "Mistral Large", family: "mistral-large", limit: { context: 131_072, output: 16_384 }, cost: { input: 2, output: 6 } },
      { id: "mistral-medium-latest", name: "Mistral Medium", family: "mistral-medium", limit: { context: 131_072, output: 16_384 }, cost: { input: 0.4, output: 2 }, attachment: true },
      { id: "mistral-small-latest", name: "Mistral Small", family: "mistral-small", limit: { context: 128_000, output: 16_384 }, cost: { input: 0.1, output: 0.3 }, attachment: true },
      { id: "codestral-latest", name: "Codestral", family: "codestral", limit: { context: 256_000, output: 4_096 }, cost: { input: 0.3, output: 0.9 } },
      { id: "devstral-medium-latest", name: "Devstral Medium", family: "devstral", limit: { context: 128_000, output: 32_768 }, cost: { input: 0.4, output: 2 } },
      { id: "devstral-small-latest", name: "Devstral Small", family: "devstral", limit: { context: 128_000, output: 32_768 }, cost: { input: 0.1, output: 0.3 } },
    ],
  },
  {
    id: "xai",
    name: "xAI",
    npm: COMPAT,
    env: ["XAI_API_KEY"],
    api: "https://api.x.ai/v1",
    models: [
      { id: "grok-4", name: "Grok 4", family: "grok", release: "2025-07-09", limit: { context: 256_000, output: 64_000 }, cost: { input: 3, output: 15, cacheRead: 0.75 }, reasoning: true, temperature: false },
      { id: "grok-4-fast-reasoning", name: "Grok 4 Fast", family: "grok", release: "2025-09-19", limit: { context: 2_000_000, output: 30_000 }, cost: { input: 0.2, output: 0.5, cacheRead: 0.05 }, reasoning: true, attachment: true },
      { id: "grok-code-fast-1", name: "Grok Code Fast 1", family: "grok", release: "2025-08-28", limit: { context: 256_000, output: 10_000 }, cost: { input: 0.2, output: 1.5, cacheRead: 0.02 }, reasoning: true },
      { id: "grok-3", name: "Grok 3", family: "grok", release: "2025-02-17", limit: { context: 131_072, output: 8_192 }, cost: { input: 3, output: 15, cacheRead: 0.75 } },
      { id: "grok-3-mini", name: "Grok 3 Mini", family: "grok-mini", release: "2025-02-17", limit: { context: 131_072, output: 8_192 }, cost: { input: 0.3, output: 0.5, cacheRead: 0.075 }, reasoning: true },
    ],
  },
  {
    id: "togetherai",
    name: "Together AI",
    npm: COMPAT,
    env: ["TOGETHER_API_KEY"],
    api: "https://api.together.xyz/v1",
    models: [
      { id: "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", name: "Qwen3 Coder 480B", family: "qwen", limit: { context: 262_144, output: 65_536 }, cost: { input: 2, output: 2 } },
      { id: "moonshotai/Kimi-K2-Instruct-0905", name: "Kimi K2 0905", family: "kimi", limit: { context: 262_144, output: 32_768 }, cost: { input: 1, output: 3 } },
      { id: "openai/gpt-oss-120b", name: "gpt-oss-120b", family: "gpt-oss", limit: { context: 131_072, output: 65_536 }, cost: { input: 0.15, output: 0.6 }, reasoning: true },
      { id: "deepseek-ai/DeepSeek-V3.1", name: "DeepSeek V3.1", family: "deepseek", limit: { context: 131_072, output: 32_768 }, cost: { input: 0.6, output: 1.7 } },
      { id: "meta-llama/Llama-3.3-70B-Instruct-Turbo", name: "Llama 3.3 70B Turbo", family: "llama", limit: { context: 131_072, output: 32_768 }, cost: { input: 0.88, output: 0.88 } },
    ],
  },
  {
    id: "fireworks-ai",
    name: "Fireworks AI",
    npm: COMPAT,
    env: ["FIREWORKS_API_KEY"],
    api: "https://api.fireworks.ai/inference/v1",
    models: [
      { id: "accounts/fireworks/models/qwen3-coder-480b-a35b-instruct", name: "Qwen3 Coder 480B", family: "qwen", limit: { context: 262_144, output: 32_768 }, cost: { input: 0.45, output: 1.8 } },
      { id: "accounts/fireworks/models/kimi-k2-instruct-0905", name: "Kimi K2 0905", family: "kimi", limit: { context: 262_144, output: 32_768 }, cost: { input: 0.6, output: 2.5 } },
      { id: "accounts/fireworks/models/deepseek-v3p1", name: "DeepSeek V3.1", family: "deepseek", limit: { context: 163_840, output: 32_768 }, cost: { input: 0.56, output: 1.68 } },
      { id: "accounts/fireworks/models/glm-4p6", name: "GLM 4.6", family: "glm", limit: { context: 202_752, output: 32_768 }, cost: { input: 0.55, output: 2.19 }, reasoning: true },
      { id: "accounts/fireworks/models/gpt-oss-120b", name: "gpt-oss-120b", family: "gpt-oss", limit: { context: 131_072, output: 32_768 }, cost: { input: 0.15, output: 0.6 }, reasoning: true },
    ],
  },
]

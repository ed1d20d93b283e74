import type { LanguageModelV3 } from "@ai-sdk/provider"

/**
 * One entry of config `provider` (OpenCode's form), declared structurally so that config's
 * inferred type is assignable without llm/ depending on how config builds it.
 */
export interface ProviderConfigInput {
  npm?: string
  name?: string
  env?: string[]
  /** Base URL, as the models.dev catalog names it; `options.baseURL` wins. */
  api?: string
  options?: {
    baseURL?: string
    apiKey?: string
    headers?: Record<string, string>
    /** ms to wait for response headers (default 60 000; 0 or false disables). */
    headerTimeout?: number | false
    /** ms to wait between two body chunks (default 60 000; 0 or false disables). */
    chunkTimeout?: number | false
    /** ms for the whole request, if set. */
    timeout?: number | false
    [k: string]: unknown
  }
  models?: Record<string, ModelConfigInput>
  whitelist?: string[]
  blacklist?: string[]
}

export interface ModelConfigInput {
  /** The id sent to the API when it differs from the key. */
  id?: string
  name?: string
  family?: string
  release_date?: string
  limit?: { context?: number; input?: number; output?: number }
  cost?: ConfigCost & { context_over_200k?: ConfigCost }
  options?: Record<string, unknown>
  headers?: Record<string, string>
  tool_call?: boolean
  reasoning?: boolean
  attachment?: boolean
  temperature?: boolean
  /** Named option sets (config may add, override or `disabled: true` one). */
  variants?: Record<string, Record<string, unknown>>
  [k: string]: unknown
}

export interface ConfigCost {
  input?: number
  output?: number
  cache_read?: number
  cache_write?: number
}

export interface LLMConfigInput {
  provider?: Record<string, ProviderConfigInput>
  model?: string
  small_model?: string
  disabled_providers?: string[]
  enabled_providers?: string[]
}

/** USD per 1M tokens. */
export interface ModelCost {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}

export interface ModelInfo {
  providerID: string
  id: string
  apiID: string
  name: string
  npm: string
  /** Catalog family (`claude-haiku`, `gpt-nano`, `gemini-flash`…), used to pick a small model. */
  family?: string
  releaseDate?: string
  /** models.dev's status: a deprecated model is never picked as a default or suggested. */
  status?: "beta" | "deprecated"
  limit: { context: number; input?: number; output: number }
  /** Rates above 200K prompt tokens apply when `over200k` is set. */
  cost: ModelCost & { over200k?: ModelCost }
  capabilities: { toolCall: boolean; reasoning: boolean; attachment: boolean; temperature: boolean }
  options: Record<string, unknown>
  headers: Record<string, string>
  /** Named sets of provider options (reasoning effort, thinking budget), in cycling order; empty when the model has none. */
  variants: Record<string, Record<string, unknown>>
  /** The provider's `options.setCacheKey`: send the session id as `prompt_cache_key` (OpenAI's own package always does). */
  setCacheKey?: boolean
}

export interface ProviderInfo {
  id: string
  name: string
  npm: string
  env: string[]
  /** Where the provider came from: config, a key in the environment, a stored key ("api", as OpenCode says), or the catalog alone. */
  source: "env" | "config" | "api" | "catalog"
  options: Record<string, unknown>
  models: Record<string, ModelInfo>
}

export interface ResolvedModel {
  info: ModelInfo
  language: LanguageModelV3
}

export interface ModelRef {
  providerID: string
  modelID: string
}

export interface Providers {
  /** Active providers: configured in config, or with an API key in the environment. */
  list(): ProviderInfo[]
  /** The whole catalog merged with config. */
  all(): ProviderInfo[]
  get(providerID: string, modelID: string): Promise<ResolvedModel>
  parseModel(s: string): ModelRef
  defaultModel(configModel?: string): ModelRef
  smallModel(providerID: string): ModelRef | undefined
  /** Re-reads the stored keys (another front end stored one); models resolved before keep theirs. Throws as `Credentials.load` does. */
  refresh(): void
  /** Stores (or, `key` undefined, removes) the provider's key in wright's auth.json and re-reads the keys. True when an entry was replaced or removed. */
  saveKey(providerID: string, key: string | undefined): boolean
  /**
   * Starts a subscription sign-in (github-copilot; openai through ChatGPT). `done` resolves once
   * the user finished and the login is stored and re-read; it rejects with a message for the user.
   * Throws ProviderAuthError for a provider without a sign-in.
   */
  startLogin(providerID: string): Promise<{ url: string; instructions: string; done: Promise<void>; cancel(): void }>
  /** Each provider that has a key: every source of one, the used one first, and its masked tail. Never the key. */
  keys(): ProviderKeys[]
  /** Replaces a provider's models with a plugin's list (OpenCode's Model shape, by id: plugins' `provider.models`). Never throws; a provider that does not exist is ignored. */
  setModels(providerID: string, models: Record<string, unknown>): void
}

export type KeySource =
  | { kind: "config" }
  | { kind: "store" | "opencode"; file: string }
  | { kind: "env"; name: string }
  /** A subscription login in wright's auth.json; `expires` is its access token's (ms since the epoch), refreshed on use. */
  | { kind: "oauth"; file: string; expires: number }

export interface ProviderKeys {
  providerID: string
  name: string
  sources: KeySource[]
  /** `…` and at most the key's last four characters. */
  masked: string
}

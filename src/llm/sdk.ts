// Turns a provider record into an AI SDK provider, chosen by its npm package. Packages load on
// first use so a run that talks to one provider never parses the others.
import type { LanguageModelV3 } from "@ai-sdk/provider"
import { timeoutFetch, userAgent } from "./fetch"
import type { ProviderRecord } from "./registry"

export type ModelFactory = (apiID: string) => LanguageModelV3

/** Options wright reads itself; everything else goes to the SDK factory untouched, as in OpenCode. */
const OWN_OPTIONS = new Set(["baseURL", "apiKey", "headers", "headerTimeout", "chunkTimeout", "timeout", "chatCompletions"])

/** Sent where an SDK insists on a key but the endpoint (a local server, a proxy) needs none. */
const NO_KEY = "wright-no-key"

export async function createFactory(record: ProviderRecord, baseFetch: typeof fetch): Promise<ModelFactory> {
  const id = record.info.id
  const opts = record.options
  const fetch = timeoutFetch(baseFetch, {
    headerTimeout: ms(opts.headerTimeout, id, "headerTimeout"),
    chunkTimeout: ms(opts.chunkTimeout, id, "chunkTimeout"),
    timeout: ms(opts.timeout, id, "timeout"),
  })
  const headers = { "User-Agent": userAgent(), ...stringRecord(opts.headers, id) }
  const extra = Object.fromEntries(Object.entries(opts).filter(([k]) => !OWN_OPTIONS.has(k)))
  const common = { ...extra, baseURL: record.baseURL, headers, fetch }

  switch (record.info.npm) {
    case "@ai-sdk/anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic")
      const sdk = createAnthropic({ ...common, apiKey: record.apiKey ?? NO_KEY })
      return (apiID) => sdk(apiID)
    }
    case "@ai-sdk/openai": {
      const { createOpenAI } = await import("@ai-sdk/openai")
      const sdk = createOpenAI({ ...common, apiKey: record.apiKey ?? NO_KEY })
      // The provider's default call is the Responses API (OpenCode does the same); a proxy that
      // only speaks Chat Completions opts out with `options.chatCompletions: true`.
      return opts.chatCompletions === true ? (apiID) => sdk.chat(apiID) : (apiID) => sdk.responses(apiID)
    }
    case "@ai-sdk/google": {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google")
      const sdk = createGoogleGenerativeAI({ ...common, apiKey: record.apiKey ?? NO_KEY })
      return (apiID) => sdk(apiID)
    }
    default: {
      if (!record.baseURL) {
        throw new Error(
          `provider.${id}.options.baseURL is required: "${id}" speaks OpenAI Chat Completions (npm ${record.info.npm}) and has no known endpoint. Set it, e.g. "http://localhost:11434/v1" for Ollama.`,
        )
      }
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible")
      const sdk = createOpenAICompatible({ ...common, name: id, baseURL: record.baseURL, apiKey: record.apiKey, includeUsage: true })
      return (apiID) => sdk.chatModel(apiID)
    }
  }
}

function ms(value: unknown, id: string, field: string): number | undefined {
  if (value === undefined) return undefined
  if (value === false) return 0
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value
  throw new Error(`provider.${id}.options.${field} must be a number of milliseconds (0 or false disables it); got ${JSON.stringify(value)}`)
}

function stringRecord(value: unknown, id: string): Record<string, string> {
  if (value === undefined) return {}
  const ok = value !== null && typeof value === "object" && Object.values(value).every((v) => typeof v === "string")
  if (!ok) throw new Error(`provider.${id}.options.headers must map header names to strings`)
  return value as Record<string, string>
}

// Turns a provider record into an AI SDK provider, chosen by its npm package. Each package is
// imported on first use (a dynamic import, its own chunk in the bundle), so a run that talks to
// one provider never loads the others. Every setting an SDK would read from process.env (keys,
// endpoints, regions, projects) is passed explicitly from the App's environment instead.
import type { LanguageModelV3 } from "@ai-sdk/provider"
import { ProviderAuthError } from "../protocol"
import { withPlainChunkCheck } from "./chat-chunks"
import { fillURL } from "./endpoints"
import { withLeanChatStream } from "./lean-chat"
import { timeoutFetch, userAgent } from "./fetch"
import type { ProviderRecord } from "./registry"

export type ModelFactory = (apiID: string) => LanguageModelV3

/** Options wright reads itself; everything else goes to the SDK factory untouched, as in OpenCode. */
const OWN_OPTIONS = new Set(["baseURL", "apiKey", "headers", "headerTimeout", "chunkTimeout", "timeout", "chatCompletions"])

/** Sent where an SDK insists on a key but the endpoint (a local server, a proxy) needs none. */
const NO_KEY = "wright-no-key"

/**
 * Variables some catalogue providers list in `env` beside (or instead of) a key: account
 * settings, never sent as the key itself.
 */
const SETTINGS = new Set([
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_REGION",
  "AWS_PROFILE",
  "AZURE_RESOURCE_NAME",
  "GOOGLE_VERTEX_PROJECT",
  "GOOGLE_VERTEX_LOCATION",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "CLOUDFLARE_ACCOUNT_ID",
])

export async function createFactory(record: ProviderRecord, baseFetch: typeof fetch, env: NodeJS.ProcessEnv): Promise<ModelFactory> {
  const id = record.info.id
  const opts = record.options
  const fetch = timeoutFetch(baseFetch, {
    headerTimeout: ms(opts.headerTimeout, id, "headerTimeout"),
    chunkTimeout: ms(opts.chunkTimeout, id, "chunkTimeout"),
    timeout: ms(opts.timeout, id, "timeout"),
  })
  const headers = { "User-Agent": userAgent(), ...stringRecord(opts.headers, id) }
  const extra = Object.fromEntries(Object.entries(opts).filter(([k]) => !OWN_OPTIONS.has(k)))
  const baseURL = record.baseURL === undefined ? undefined : fillURL(record.baseURL, env, id)
  const common = { ...extra, baseURL, headers, fetch }
  const apiKey = keyOf(record, env)
  const setting = (option: string, ...names: string[]) => text(opts[option]) ?? names.map((n) => env[n]).find((v) => v)
  const chat = opts.chatCompletions === true

  switch (record.info.npm) {
    case "@ai-sdk/anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic")
      const sdk = createAnthropic({ ...common, apiKey: apiKey ?? NO_KEY })
      return (apiID) => sdk(apiID)
    }
    case "@ai-sdk/openai": {
      const { createOpenAI } = await import("@ai-sdk/openai")
      const sdk = createOpenAI({ ...common, apiKey: apiKey ?? NO_KEY })
      // The provider's default call is the Responses API (OpenCode does the same); a proxy that
      // only speaks Chat Completions opts out with `options.chatCompletions: true`.
      return chat ? (apiID) => sdk.chat(apiID) : (apiID) => sdk.responses(apiID)
    }
    case "@ai-sdk/google": {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google")
      const sdk = createGoogleGenerativeAI({ ...common, apiKey: apiKey ?? NO_KEY })
      return (apiID) => sdk(apiID)
    }
    case "@ai-sdk/mistral": {
      const { createMistral } = await import("@ai-sdk/mistral")
      const sdk = createMistral({ ...common, apiKey: apiKey ?? NO_KEY })
      return (apiID) => sdk(apiID)
    }
    case "@ai-sdk/groq": {
      const { createGroq } = await import("@ai-sdk/groq")
      const sdk = createGroq({ ...common, apiKey: apiKey ?? NO_KEY })
      return (apiID) => sdk(apiID)
    }
    case "@ai-sdk/xai": {
      const { createXai } = await import("@ai-sdk/xai")
      const sdk = createXai({ ...common, apiKey: apiKey ?? NO_KEY })
      // The Responses API, as OpenCode uses for xAI; `chatCompletions: true` for Chat Completions.
      return chat ? (apiID) => sdk.chat(apiID) : (apiID) => sdk.responses(apiID)
    }
    case "@ai-sdk/azure": {
      const resourceName = setting("resourceName", "AZURE_RESOURCE_NAME")
      if (!resourceName && !baseURL) throw missing(id, "its resource name", "AZURE_RESOURCE_NAME", "resourceName")
      const { createAzure } = await import("@ai-sdk/azure")
      const sdk = createAzure({ ...common, resourceName, apiKey: apiKey ?? NO_KEY })
      // Deployments answer on the Responses API; older ones need `chatCompletions: true`.
      return chat || opts.useCompletionUrls === true ? (apiID) => sdk.chat(apiID) : (apiID) => sdk.responses(apiID)
    }
    case "@ai-sdk/amazon-bedrock": {
      const region = setting("region", "AWS_REGION", "AWS_DEFAULT_REGION") ?? "us-east-1"
      // A Bedrock API key (bearer token) from config, the key store or the environment; else SigV4 with the access keys.
      const bearer = apiKey ?? env.AWS_BEARER_TOKEN_BEDROCK
      const accessKeyId = env.AWS_ACCESS_KEY_ID
      const secretAccessKey = env.AWS_SECRET_ACCESS_KEY
      if (!bearer && (!accessKeyId || !secretAccessKey)) {
        throw new ProviderAuthError({
          providerID: id,
          message: `No credentials for provider "${id}": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_REGION), or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK or with \`wright auth login ${id}\``,
        })
      }
      const { createAmazonBedrock } = await import("@ai-sdk/amazon-bedrock")
      const sdk = createAmazonBedrock({
        ...common,
        baseURL: baseURL ?? `https://bedrock-runtime.${region}.amazonaws.com`,
        region,
        // "" (not undefined) keeps the SDK from reading AWS_BEARER_TOKEN_BEDROCK from process.env.
        apiKey: bearer ?? "",
        accessKeyId,
        secretAccessKey,
        sessionToken: env.AWS_SESSION_TOKEN,
      })
      return (apiID) => sdk(inferenceProfile(apiID, region))
    }
    case "@ai-sdk/google-vertex":
    case "@ai-sdk/google-vertex/anthropic": {
      const anthropic = record.info.npm.endsWith("/anthropic")
      const project = setting("project", "GOOGLE_VERTEX_PROJECT", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT")
      const location = setting("location", "GOOGLE_VERTEX_LOCATION", "GOOGLE_CLOUD_LOCATION") ?? (anthropic ? "global" : "us-central1")
      // An API key means Vertex express mode (Gemini only); otherwise Google's application default credentials.
      const expressKey = anthropic ? undefined : (apiKey ?? env.GOOGLE_VERTEX_API_KEY)
      if (!project && !expressKey) throw missing(id, "a Google Cloud project", "GOOGLE_VERTEX_PROJECT", "project")
      const keyFilename = env.GOOGLE_APPLICATION_CREDENTIALS
      const googleAuthOptions = { ...(project ? { projectId: project } : {}), ...(keyFilename ? { keyFilename } : {}) }
      if (anthropic) {
        const { createVertexAnthropic } = await import("@ai-sdk/google-vertex/anthropic")
        const sdk = createVertexAnthropic({ ...common, project, location, googleAuthOptions })
        return (apiID) => sdk(apiID)
      }
      const { createVertex } = await import("@ai-sdk/google-vertex")
      // "" (not undefined) keeps the SDK from reading GOOGLE_VERTEX_API_KEY from process.env.
      const sdk = createVertex({ ...common, project, location, apiKey: expressKey ?? "", googleAuthOptions })
      return (apiID) => sdk(apiID)
    }
    default: {
      // @ai-sdk/openai-compatible itself, and every package wright does not bundle (see endpoints.ts).
      if (!baseURL) {
        throw new Error(
          `provider.${id}.options.baseURL is required: "${id}" is reached over OpenAI Chat Completions (npm ${record.info.npm}) and has no known endpoint. Set it, e.g. "http://localhost:11434/v1" for Ollama.`,
        )
      }
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible")
      const sdk = createOpenAICompatible({ ...common, name: id, baseURL, apiKey, includeUsage: true })
      // The package's stream reading, done in one stream instead of five (lean-chat.ts).
      return (apiID) => withLeanChatStream(withPlainChunkCheck(sdk.chatModel(apiID)))
    }
  }
}

/**
 * The record's key, unless it is only an account setting that a catalogue provider lists first
 * in `env` (Azure's resource name, Vertex's project): then the first variable that is a key.
 */
function keyOf(record: ProviderRecord, env: NodeJS.ProcessEnv): string | undefined {
  const settings = record.info.env.filter((name) => SETTINGS.has(name))
  const key = record.apiKey
  if (key !== undefined && !settings.some((name) => env[name] === key)) return key
  return record.info.env
    .filter((name) => !SETTINGS.has(name))
    .map((name) => env[name])
    .find((v) => typeof v === "string" && v !== "")
}

/**
 * Newer models on Bedrock are invoked through a cross-region inference profile
 * (`us.anthropic.claude-…`); ids that already name one, or an ARN, are kept.
 */
function inferenceProfile(apiID: string, region: string): string {
  if (apiID.startsWith("arn:") || /^(global|us|eu|apac|jp|au|ca)\./.test(apiID)) return apiID
  if (!/^(anthropic\.claude|amazon\.nova|meta\.llama|deepseek\.r1)/.test(apiID)) return apiID
  const geo = region.startsWith("us-gov") ? undefined : region.startsWith("us-") ? "us" : region.startsWith("eu-") ? "eu" : region.startsWith("ap-") ? "apac" : undefined
  return geo ? `${geo}.${apiID}` : apiID
}

function missing(id: string, what: string, variable: string, option: string): Error {
  return new ProviderAuthError({
    providerID: id,
    message: `Provider "${id}" needs ${what}: set ${variable} in the environment, or provider.${id}.options.${option} in your config`,
  })
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined
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

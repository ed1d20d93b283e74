// Where each AI SDK package's service lives, for catalogue providers that name a package but
// no `api` (models.dev leaves the URL out where the package knows it). Packages wright bundles
// get their endpoint passed explicitly, so that no SDK falls back to reading process.env.
// Packages wright does not bundle, whose services speak OpenAI Chat Completions, are reached
// through @ai-sdk/openai-compatible at the URL listed here (see sdk.ts).
// A `${NAME}` in a URL is filled in from the environment when the provider is first used.

const ENDPOINTS: Record<string, string> = {
  // Bundled packages with a fixed endpoint.
  "@ai-sdk/anthropic": "https://api.anthropic.com/v1",
  "@ai-sdk/openai": "https://api.openai.com/v1",
  "@ai-sdk/google": "https://generativelanguage.googleapis.com/v1beta",
  "@ai-sdk/mistral": "https://api.mistral.ai/v1",
  "@ai-sdk/groq": "https://api.groq.com/openai/v1",
  "@ai-sdk/xai": "https://api.x.ai/v1",
  // Not bundled: thin wrappers over the OpenAI-compatible wire, or services that also serve it.
  "@ai-sdk/cerebras": "https://api.cerebras.ai/v1",
  "@ai-sdk/togetherai": "https://api.together.xyz/v1",
  "@ai-sdk/deepinfra": "https://api.deepinfra.com/v1/openai",
  "@ai-sdk/deepseek": "https://api.deepseek.com",
  "@ai-sdk/fireworks": "https://api.fireworks.ai/inference/v1",
  "@ai-sdk/perplexity": "https://api.perplexity.ai",
  "@perplexity-ai/sdk": "https://api.perplexity.ai",
  "@ai-sdk/cohere": "https://api.cohere.ai/compatibility/v1",
  "@ai-sdk/vercel": "https://api.v0.dev/v1",
  "@ai-sdk/gateway": "https://ai-gateway.vercel.sh/v1",
  "@openrouter/ai-sdk-provider": "https://openrouter.ai/api/v1",
  "@requesty/ai-sdk": "https://router.requesty.ai/v1",
  "workers-ai-provider": "https://api.cloudflare.com/client/v4/accounts/${CLOUDFLARE_ACCOUNT_ID}/ai/v1",
}

/**
 * Packages wright loads itself (each on first use). Every other package name is served
 * through @ai-sdk/openai-compatible at the provider's base URL.
 */
export const BUNDLED_PACKAGES = [
  "@ai-sdk/openai-compatible",
  "@ai-sdk/anthropic",
  "@ai-sdk/openai",
  "@ai-sdk/google",
  "@ai-sdk/google-vertex",
  "@ai-sdk/google-vertex/anthropic",
  "@ai-sdk/amazon-bedrock",
  "@ai-sdk/azure",
  "@ai-sdk/mistral",
  "@ai-sdk/groq",
  "@ai-sdk/xai",
] as const

/** The service URL of a package, when it has one fixed URL (Azure, Bedrock and Vertex derive theirs from settings). */
export function defaultBaseURL(npm: string): string | undefined {
  return ENDPOINTS[npm]
}

/** Fills each `${NAME}` of a URL from `env`; throws naming the variable that is missing. */
export function fillURL(url: string, env: NodeJS.ProcessEnv, providerID: string): string {
  return url.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name]
    if (value) return encodeURIComponent(value)
    throw new Error(`provider ${providerID}'s base URL (${url}) needs ${name}: set it in the environment, or set provider.${providerID}.options.baseURL in your config`)
  })
}

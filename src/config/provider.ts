import { z } from "zod"

const PositiveInt = z.number().int().positive()
const Modality = z.enum(["text", "audio", "image", "video", "pdf"])

const Cost = z.object({
  input: z.number(),
  output: z.number(),
  cache_read: z.number().optional(),
  cache_write: z.number().optional(),
})

/** A model entry under `provider.<id>.models`, in OpenCode's (models.dev) shape. Extra keys pass through. */
export const ModelConfig = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  family: z.string().optional(),
  release_date: z.string().optional(),
  attachment: z.boolean().optional(),
  reasoning: z.boolean().optional(),
  temperature: z.boolean().optional(),
  tool_call: z.boolean().optional(),
  interleaved: z
    .union([z.literal(true), z.object({ field: z.enum(["reasoning_content", "reasoning_details"]) })])
    .optional(),
  cost: Cost.extend({ context_over_200k: Cost.optional() }).optional(),
  limit: z.object({ context: z.number(), input: z.number().optional(), output: z.number() }).optional(),
  modalities: z.object({ input: z.array(Modality).optional(), output: z.array(Modality).optional() }).optional(),
  experimental: z.boolean().optional(),
  status: z.enum(["alpha", "beta", "deprecated", "active"]).optional(),
  provider: z.object({ npm: z.string().optional(), api: z.string().optional() }).optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  variants: z.record(z.string(), z.looseObject({ disabled: z.boolean().optional() })).optional(),
})
export type ModelConfig = z.infer<typeof ModelConfig>

/** `provider.<id>.options`: what the SDK factory gets. Unknown keys pass through to it. */
export const ProviderOptions = z.looseObject({
  apiKey: z.string().optional(),
  baseURL: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  enterpriseUrl: z.string().optional(),
  setCacheKey: z.boolean().optional(),
  timeout: z.union([PositiveInt, z.literal(false)]).optional(),
  headerTimeout: z.union([PositiveInt, z.literal(false)]).optional(),
  chunkTimeout: PositiveInt.optional(),
})
export type ProviderOptions = z.infer<typeof ProviderOptions>

/**
 * `provider.<id>` exactly as OpenCode takes it, so an OpenCode user's block works unchanged.
 * Without a known `npm` package the provider speaks OpenAI Chat Completions to `baseURL`.
 */
export const ProviderConfig = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  npm: z.string().optional(),
  api: z.string().optional(),
  env: z.array(z.string()).optional(),
  whitelist: z.array(z.string()).optional(),
  blacklist: z.array(z.string()).optional(),
  discoverModels: z.boolean().optional(),
  options: ProviderOptions.optional(),
  models: z.record(z.string(), ModelConfig).optional(),
})
export type ProviderConfig = z.infer<typeof ProviderConfig>

import { z } from "zod"
import { BadRequestError } from "./error"

/** A model as `{providerID, modelID}`; written "provider/model" in config, flags and API bodies. */
export const ModelRef = z.object({ providerID: z.string(), modelID: z.string(), variant: z.string().optional() })
export type ModelRef = z.infer<typeof ModelRef>

/**
 * The one reading of "provider/model": the first "/" splits, so the model may hold more
 * ("openrouter/anthropic/claude-sonnet-4.5"); both sides must be non-empty. `field` names
 * where the text came from (`--model`, `agent.build.model`, `small_model`) in the error, a
 * BadRequestError (HTTP 400, printed without a stack).
 */
export function parseModelRef(text: string, field = "model"): { providerID: string; modelID: string } {
  const slash = text.indexOf("/")
  if (slash <= 0 || slash === text.length - 1) {
    const message = `expected "provider/model" (e.g. anthropic/claude-sonnet-4-5), got ${JSON.stringify(text)}`
    throw new BadRequestError({ message: `${field}: ${message}`, issues: [{ path: field, message }] })
  }
  return { providerID: text.slice(0, slash), modelID: text.slice(slash + 1) }
}

import { z } from "zod"
import type { Tool } from "../tool"

export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput"

/**
 * The tool a model must call when the prompt asked for `format: {type: "json_schema"}`. Its
 * input schema is the user's schema; input that does not validate is refused with the reasons,
 * so the model can correct it on the next step.
 */
export function createStructuredOutputTool(schema: Record<string, unknown>, onSuccess: (value: unknown) => void, onInvalid: () => void): Tool {
  const { $schema: _ignored, ...jsonSchema } = schema
  let validator: z.ZodType
  try {
    validator = z.fromJSONSchema(jsonSchema as never)
  } catch (e) {
    throw new Error(`format.schema is not a JSON Schema wright can validate: ${(e as Error).message}`)
  }
  return {
    id: STRUCTURED_OUTPUT_TOOL,
    description:
      "Return your final answer as structured data. You MUST call this tool exactly once, at the end of your work, with input that matches the schema exactly. Do not answer in plain text instead.",
    parameters: z.unknown(),
    jsonSchema: jsonSchema.type ? jsonSchema : { type: "object", ...jsonSchema },
    async execute(input) {
      const result = validator.safeParse(input)
      if (!result.success) {
        onInvalid()
        const issues = result.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`).join("; ")
        throw new Error(`The structured output does not match the schema: ${issues}. Call StructuredOutput again with corrected input.`)
      }
      onSuccess(result.data)
      return { title: "Structured output", output: "Structured output captured successfully.", metadata: {} }
    },
  }
}

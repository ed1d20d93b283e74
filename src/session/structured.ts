// Structured output (`format: {type: "json_schema"}` on a prompt): the StructuredOutput tool the
// model must call, and the loop policy around it (offer the tool, end the run once it captured
// an answer, give up after the retries with a StructuredOutputError).
import { z } from "zod"
import type { Bus } from "../bus"
import { StructuredOutputError } from "../protocol"
import type { Tool } from "../tool"
import type { History } from "./history"
import type { LoopHooks } from "./loop"

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
    summary: () => ({ title: "Structured output", kind: "other", locations: [] }),
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

/** The loop hooks that offer StructuredOutput and end the run on its answer. */
export function structuredOutputHooks(deps: { history: History; bus: Bus }): Required<Pick<LoopHooks, "extraTools" | "afterStep">> {
  return {
    extraTools({ user, step }) {
      if (user.format?.type !== "json_schema") return []
      return [
        createStructuredOutputTool(
          user.format.schema,
          (value) => (step.structured = value),
          () => step.run.invalidStructured++,
        ),
      ]
    },
    afterStep({ assistant, user, step }) {
      if (user.format?.type !== "json_schema") return undefined
      if (step.structured !== undefined) {
        assistant.structured = step.structured
        // The answer is complete even though the provider ended the step on a tool call.
        assistant.finish = "stop"
        deps.history.putMessage(assistant)
        return "break"
      }
      const retries = user.format.retryCount ?? 2
      const finished = assistant.finish && assistant.finish !== "tool-calls" && assistant.finish !== "unknown"
      if (assistant.error || (!finished && step.run.invalidStructured <= retries)) return undefined
      const message = finished ? "Model did not produce structured output" : `Structured output did not match the schema after ${step.run.invalidStructured} attempts`
      assistant.error = new StructuredOutputError({ message, retries: step.run.invalidStructured }).toObject()
      deps.history.putMessage(assistant)
      deps.bus.publish("session.error", { sessionID: assistant.sessionID, error: assistant.error })
      return "break"
    },
  }
}

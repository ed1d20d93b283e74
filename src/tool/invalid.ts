import { z } from "zod"
import DESCRIPTION from "./invalid.txt"
import { textOf } from "./summary"
import { defineTool } from "./tool"

/**
 * Where the session routes a call it cannot run (unknown tool name, arguments that do not
 * parse): the model reads why, and the loop goes on.
 */
export const invalid = defineTool({
  id: "invalid",
  description: DESCRIPTION,
  parameters: z.object({
    tool: z.string().describe("The name of the tool that was called"),
    error: z.string().describe("Why the call could not be run"),
  }),
  summary(input) {
    const tool = textOf(input.tool)
    return { title: tool ? `Invalid call to ${tool}` : "Invalid call", kind: "other", locations: [] }
  },
  async execute(args) {
    return {
      title: "Invalid Tool",
      output: `The arguments provided to the tool are invalid: ${args.error}`,
      metadata: { tool: args.tool },
    }
  },
})

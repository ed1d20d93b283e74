import { describe, expect, it } from "vitest"
import { runTool } from "../../src/tool"
import { invalid } from "../../src/tool/invalid"
import { toolContext } from "../lib/tool-context"

describe("invalid", () => {
  it("invalid - tells the model what was wrong with its call", async () => {
    const ctx = toolContext()
    const result = await runTool(invalid, { tool: "bsh", error: "Model tried to call unavailable tool 'bsh'." }, ctx)
    expect(result.output).toBe("The arguments provided to the tool are invalid: Model tried to call unavailable tool 'bsh'.")
    expect(result.title).toBe("Invalid Tool")
    expect(ctx.asks).toEqual([])
  })

  it("invalid - its own arguments are validated like any tool", async () => {
    await expect(runTool(invalid, { tool: "x" }, toolContext())).rejects.toThrow("The invalid tool was called with invalid arguments: error")
  })
})

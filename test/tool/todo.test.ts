import { describe, expect, it } from "vitest"
import { runTool } from "../../src/tool"
import { todoread, todowrite } from "../../src/tool/todo"
import { toolContext } from "../lib/tool-context"

const list = [
  { content: "Write the parser", status: "completed", priority: "high" },
  { content: "Test the parser", status: "in_progress", priority: "high" },
  { content: "Document it", status: "pending", priority: "low", id: "doc" },
]

describe("todo", () => {
  it("todo - todowrite replaces the session's list and todoread returns it", async () => {
    const ctx = toolContext()
    ctx.services.todos.set(ctx.sessionID, [{ content: "old item", status: "pending", priority: "medium" }])
    const written = await runTool(todowrite, { todos: list }, ctx)
    expect(ctx.services.todos.get(ctx.sessionID)).toEqual(list)
    expect(JSON.parse(written.output)).toEqual(list)
    expect(written.title).toBe("2 todos")

    const read = await runTool(todoread, {}, ctx)
    expect(JSON.parse(read.output)).toEqual(list)
    expect(read.title).toBe("2 todos")
    expect(ctx.asks.map((a) => [a.permission, a.patterns, a.always])).toEqual([
      ["todowrite", ["*"], ["*"]],
      ["todoread", ["*"], ["*"]],
    ])
  })

  it("todo - an empty session reads as an empty list", async () => {
    const read = await runTool(todoread, {}, toolContext())
    expect(JSON.parse(read.output)).toEqual([])
    expect(read.title).toBe("0 todos")
  })

  it("todo - a bad status is refused and the list is kept", async () => {
    const ctx = toolContext()
    ctx.services.todos.set(ctx.sessionID, list as never)
    await expect(
      runTool(todowrite, { todos: [{ content: "x", status: "done", priority: "high" }] }, ctx),
    ).rejects.toThrow(/todos\.0\.status/)
    expect(ctx.services.todos.get(ctx.sessionID)).toEqual(list)
  })

  it("todo - a denied permission leaves the list untouched", async () => {
    const ctx = toolContext({ decide: () => Promise.reject(new Error("denied")) })
    await expect(runTool(todowrite, { todos: list }, ctx)).rejects.toThrow("denied")
    expect(ctx.services.todos.get(ctx.sessionID)).toEqual([])
  })
})

import { z } from "zod"
import type { Todo } from "../protocol"
import TODOREAD from "./todoread.txt"
import TODOWRITE from "./todowrite.txt"
import { defineTool } from "./tool"

// The session layer owns the list (persists it and publishes `todo.updated`); these tools
// only read and replace it through `ctx.services.todos`.

const TodoItem = z.object({
  content: z.string().min(1).describe("What needs to be done, as a short imperative sentence"),
  status: z.enum(["pending", "in_progress", "completed", "cancelled"]).describe("pending, in_progress, completed or cancelled"),
  priority: z.enum(["high", "medium", "low"]).describe("high, medium or low"),
  id: z.string().optional().describe("Optional stable identifier of the item"),
})

function summary(todos: Todo[]) {
  const open = todos.filter((t) => t.status !== "completed").length
  return { title: `${open} todos`, output: JSON.stringify(todos, null, 2), metadata: { todos } }
}

export const todowrite = defineTool({
  id: "todowrite",
  description: TODOWRITE,
  parameters: z.object({ todos: z.array(TodoItem).describe("The whole updated todo list; it replaces the current one") }),
  summary(input) {
    const todos = Array.isArray(input.todos) ? input.todos : undefined
    const done = todos?.filter((t) => (t as { status?: unknown } | null)?.status === "completed").length
    return { title: todos ? `Update todos (${done}/${todos.length} done)` : "Update todos", kind: "think", locations: [] }
  },
  async execute(args, ctx) {
    await ctx.ask({ permission: "todowrite", patterns: ["*"], always: ["*"], metadata: {} })
    ctx.services.todos.set(ctx.sessionID, args.todos)
    return summary(args.todos)
  },
})

export const todoread = defineTool({
  id: "todoread",
  description: TODOREAD,
  parameters: z.object({}),
  summary: () => ({ title: "Read todos", kind: "think", locations: [] }),
  async execute(_args, ctx) {
    await ctx.ask({ permission: "todoread", patterns: ["*"], always: ["*"], metadata: {} })
    return summary(ctx.services.todos.get(ctx.sessionID))
  },
})

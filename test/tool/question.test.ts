import { describe, expect, it } from "vitest"
import { createBus } from "../../src/bus"
import { createQuestions, QuestionRejectedError } from "../../src/session/question"
import { runTool } from "../../src/tool"
import { question } from "../../src/tool/question"
import { toolContext } from "../lib/tool-context"

const input = {
  questions: [
    { question: "Which database?", header: "Database", options: [{ label: "SQLite", description: "embedded" }, { label: "Postgres", description: "server" }] },
    { question: "Which extras?", header: "Extras", options: [{ label: "Docs", description: "" }, { label: "CI", description: "" }], multiple: true },
    { question: "Anything else?", header: "Notes", options: [] },
  ],
}

function withRealService() {
  const bus = createBus()
  const service = createQuestions({ bus })
  const ctx = toolContext()
  ctx.services = { ...ctx.services, question: service }
  return { bus, service, ctx }
}

describe("question tool", () => {
  it("question tool - waits for the user's answers through the bus", async () => {
    const { bus, service, ctx } = withRealService()
    const asked: unknown[] = []
    bus.subscribe("question.asked", (e) => {
      asked.push(e.properties)
      queueMicrotask(() => service.reply(e.properties.id, [["SQLite"], ["Docs", "CI"], []]))
    })
    const result = await runTool(question, input, ctx)
    expect(asked).toEqual([expect.objectContaining({ sessionID: ctx.sessionID, tool: { messageID: ctx.messageID, callID: ctx.callID } })])
    expect(result.output).toBe(
      'User has answered your questions: "Which database?"="SQLite", "Which extras?"="Docs, CI", "Anything else?"="Unanswered". You can now continue with the user\'s answers in mind.',
    )
    expect(result.title).toBe("Asked 3 questions")
    expect(result.metadata.answers).toEqual([["SQLite"], ["Docs", "CI"], []])
  })

  it("question tool - a dismissed question fails the call", async () => {
    const { bus, service, ctx } = withRealService()
    bus.subscribe("question.asked", (e) => queueMicrotask(() => service.reject(e.properties.id)))
    await expect(runTool(question, input, ctx)).rejects.toBeInstanceOf(QuestionRejectedError)
  })

  it("question tool - aborting the call withdraws the question", async () => {
    const { bus, service, ctx } = withRealService()
    bus.subscribe("question.asked", () => queueMicrotask(() => ctx.controller.abort(new Error("aborted by user"))))
    await expect(runTool(question, input, ctx)).rejects.toThrow("aborted by user")
    expect(service.list()).toEqual([])
  })

  it("question tool - a header over 30 characters is refused", async () => {
    const bad = { questions: [{ ...input.questions[0]!, header: "x".repeat(31) }] }
    await expect(runTool(question, bad, toolContext({ answers: [] }))).rejects.toThrow(/questions\.0\.header/)
  })
})

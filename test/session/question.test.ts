import { describe, expect, it } from "vitest"
import { createBus } from "../../src/bus"
import type { BusEvent } from "../../src/protocol"
import { createQuestions, QuestionRejectedError } from "../../src/session/question"

const questions = [
  { question: "Which database?", header: "Database", options: [{ label: "SQLite", description: "embedded" }, { label: "Postgres", description: "server" }] },
]

function setup() {
  const bus = createBus()
  const events: BusEvent[] = []
  bus.subscribeAll((e) => events.push(e))
  return { bus, events, service: createQuestions({ bus }) }
}

describe("question service", () => {
  it("question service - publishes the request and resolves with the reply", async () => {
    const { events, service } = setup()
    const answer = service.ask({ sessionID: "ses_a", questions, tool: { messageID: "msg_1", callID: "call_1" } }, new AbortController().signal)

    const asked = events.find((e) => e.type === "question.asked")
    expect(asked?.properties).toMatchObject({ sessionID: "ses_a", questions, tool: { messageID: "msg_1", callID: "call_1" } })
    const id = (asked!.properties as { id: string }).id
    expect(id).toMatch(/^que_/)
    expect(service.list("ses_a").map((r) => r.id)).toEqual([id])

    expect(service.reply(id, [["SQLite"]])).toBe(true)
    await expect(answer).resolves.toEqual([["SQLite"]])
    expect(events.at(-1)).toEqual({ type: "question.replied", properties: { sessionID: "ses_a", requestID: id, answers: [["SQLite"]] } })
    expect(service.list()).toEqual([])
    expect(service.reply(id, [["again"]])).toBe(false)
  })

  it("question service - a rejection fails the ask with QuestionRejectedError", async () => {
    const { events, service } = setup()
    const answer = service.ask({ sessionID: "ses_a", questions }, new AbortController().signal)
    const [request] = service.list()
    expect(service.reject(request!.id)).toBe(true)
    await expect(answer).rejects.toBeInstanceOf(QuestionRejectedError)
    await expect(answer).rejects.toThrow("The user dismissed this question")
    expect(events.at(-1)).toEqual({ type: "question.rejected", properties: { sessionID: "ses_a", requestID: request!.id } })
    expect(service.reject(request!.id)).toBe(false)
  })

  it("question service - cancelling a session rejects only that session's questions", async () => {
    const { service } = setup()
    const a = service.ask({ sessionID: "ses_a", questions }, new AbortController().signal)
    const b = service.ask({ sessionID: "ses_b", questions }, new AbortController().signal)
    service.cancelSession("ses_a")
    await expect(a).rejects.toBeInstanceOf(QuestionRejectedError)
    expect(service.list().map((r) => r.sessionID)).toEqual(["ses_b"])
    service.reply(service.list()[0]!.id, [["Postgres"]])
    await expect(b).resolves.toEqual([["Postgres"]])
  })

  it("question service - an aborted call withdraws its question", async () => {
    const { events, service } = setup()
    const controller = new AbortController()
    const answer = service.ask({ sessionID: "ses_a", questions }, controller.signal)
    controller.abort(new Error("stopped"))
    await expect(answer).rejects.toThrow("stopped")
    expect(service.list()).toEqual([])
    expect(events.map((e) => e.type)).toEqual(["question.asked", "question.rejected"])
  })
})

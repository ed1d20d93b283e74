// Questions the model asks the user (the question tool). A request is published as
// `question.asked` and waits until a client replies, rejects it, the session is cancelled, or
// the tool call is aborted. Pending requests live in memory only: they die with the process.
import { z } from "zod"
import type { Bus } from "../bus"
import { namedError, type QuestionInfo, type QuestionRequest } from "../protocol"
import { Id } from "../util"

/** The user dismissed the question; the loop stops and waits for the user. */
export class QuestionRejectedError extends namedError("QuestionRejectedError", z.object({ message: z.string() }), { stopsLoop: true }) {
  constructor() {
    super({ message: "The user dismissed this question" })
  }
}

export interface QuestionAskInput {
  sessionID: string
  questions: QuestionInfo[]
  tool?: { messageID: string; callID: string }
}

export interface Questions {
  /** Resolves with one answer (the chosen labels or typed text) per question, in order. */
  ask(input: QuestionAskInput, signal: AbortSignal): Promise<string[][]>
  /** False when no such request is pending. */
  reply(requestID: string, answers: string[][]): boolean
  reject(requestID: string): boolean
  list(sessionID?: string): QuestionRequest[]
  /** Rejects every pending request of the session (it was aborted or deleted). */
  cancelSession(sessionID: string): void
}

interface Pending {
  info: QuestionRequest
  resolve(answers: string[][]): void
  fail(error: unknown): void
}

export function createQuestions({ bus }: { bus: Bus }): Questions {
  const pending = new Map<string, Pending>()

  function settle(requestID: string, fn: (p: Pending) => void): boolean {
    const entry = pending.get(requestID)
    if (!entry) return false
    pending.delete(requestID)
    fn(entry)
    return true
  }

  function rejectEntry(entry: Pending, error: unknown) {
    bus.publish("question.rejected", { sessionID: entry.info.sessionID, requestID: entry.info.id })
    entry.fail(error)
  }

  return {
    ask(input, signal) {
      if (signal.aborted) return Promise.reject(signal.reason ?? new Error("Aborted"))
      return new Promise<string[][]>((resolve, reject) => {
        const info: QuestionRequest = {
          id: Id.ascending("que"),
          sessionID: input.sessionID,
          questions: input.questions,
          ...(input.tool ? { tool: input.tool } : {}),
        }
        const onAbort = () => settle(info.id, (entry) => rejectEntry(entry, signal.reason ?? new Error("Aborted")))
        pending.set(info.id, {
          info,
          resolve(answers) {
            signal.removeEventListener("abort", onAbort)
            resolve(answers)
          },
          fail(error) {
            signal.removeEventListener("abort", onAbort)
            reject(error)
          },
        })
        signal.addEventListener("abort", onAbort, { once: true })
        bus.publish("question.asked", info)
      })
    },

    reply(requestID, answers) {
      return settle(requestID, (entry) => {
        bus.publish("question.replied", { sessionID: entry.info.sessionID, requestID, answers })
        entry.resolve(answers)
      })
    },

    reject(requestID) {
      return settle(requestID, (entry) => rejectEntry(entry, new QuestionRejectedError()))
    },

    list(sessionID) {
      return [...pending.values()].map((p) => p.info).filter((info) => !sessionID || info.sessionID === sessionID)
    },

    cancelSession(sessionID) {
      for (const entry of [...pending.values()]) {
        if (entry.info.sessionID === sessionID) settle(entry.info.id, (e) => rejectEntry(e, new QuestionRejectedError()))
      }
    },
  }
}

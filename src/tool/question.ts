import { z } from "zod"
import DESCRIPTION from "./question.txt"
import { oneLine, textOf } from "./summary"
import { defineTool } from "./tool"

const Question = z.object({
  question: z.string().describe("The complete question"),
  header: z.string().max(30).describe("A very short label for the question (at most 30 characters)"),
  options: z
    .array(
      z.object({
        label: z.string().describe("The text of the choice (1-5 words)"),
        description: z.string().describe("What choosing it means"),
      }),
    )
    .describe("The choices offered"),
  multiple: z.boolean().optional().describe("Allow selecting more than one choice"),
})

export const question = defineTool({
  id: "question",
  description: DESCRIPTION,
  parameters: z.object({ questions: z.array(Question).min(1).describe("The questions to ask") }),
  summary(input) {
    const questions = Array.isArray(input.questions) ? input.questions : []
    const first = (questions[0] ?? {}) as Record<string, unknown>
    const label = textOf(first.header) ?? textOf(first.question)
    const title = questions.length > 1 ? `Ask ${questions.length} questions` : label ? `Ask: ${oneLine(label, 80)}` : "Ask"
    return { title, kind: "other", locations: [] }
  },
  async execute(args, ctx) {
    const answers = await ctx.services.question.ask(
      { sessionID: ctx.sessionID, questions: args.questions, tool: { messageID: ctx.messageID, callID: ctx.callID } },
      ctx.abort,
    )
    const pairs = args.questions.map((q, i) => {
      const answer = answers[i]?.length ? answers[i]!.join(", ") : "Unanswered"
      return `"${q.question}"="${answer}"`
    })
    const n = args.questions.length
    return {
      title: `Asked ${n} question${n === 1 ? "" : "s"}`,
      output: `User has answered your questions: ${pairs.join(", ")}. You can now continue with the user's answers in mind.`,
      metadata: { answers },
    }
  },
})

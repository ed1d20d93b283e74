import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { asSchema } from "ai"
import { expect, test } from "vitest"
import { PlainTextFrames, isPlainChatChunk, withPlainChunkCheck } from "../../src/llm/chat-chunks"

const model = () => createOpenAICompatible({ name: "fake", baseURL: "http://127.0.0.1:9/v1" }).chatModel("m")
// The package's own zod union (chunk | error), the reference for what a chunk may be.
const reference = asSchema((model() as unknown as { chunkSchema: never }).chunkSchema)

const text = (content: unknown, extra: Record<string, unknown> = {}) => ({ id: "c1", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", content, ...extra }, finish_reason: null }] })

const CHUNKS: Array<[string, unknown, boolean]> = [
  ["a text delta", text("Hello"), true],
  ["a reasoning delta", text(null, { reasoning_content: "thinking" }), true],
  ["gpt-oss style reasoning", text(undefined, { reasoning: "thinking" }), true],
  ["an empty role", { choices: [{ delta: { role: "", content: "x" } }] }, true],
  ["the finish chunk", { choices: [{ delta: {}, finish_reason: "stop" }] }, true],
  ["no choices at all", { choices: [] }, true],
  ["a choice without delta", { choices: [{ finish_reason: "length" }] }, true],
  ["usage goes to the package", { choices: [], usage: { prompt_tokens: 3 } }, false],
  ["tool calls go to the package", text(null, { tool_calls: [{ index: 0, id: "t", function: { name: "read", arguments: "" } }] }), false],
  ["a refusal goes to the package", text(null, { refusal: "no" }), false],
  ["content parts go to the package", text([{ type: "text", text: "x" }]), false],
  ["an error chunk goes to the package", { error: { message: "overloaded" } }, false],
  ["content that is a number", text(5), false],
  ["an unknown role", text("x", { role: "tool" }), false],
  ["choices that is not a list", { choices: "x" }, false],
  ["a delta that is a list", { choices: [{ delta: ["x"] }] }, false],
  ["created that is a string", { created: "now", choices: [] }, false],
  ["a finish reason that is a number", { choices: [{ delta: {}, finish_reason: 1 }] }, false],
  ["not an object", "data", false],
  ["null", null, false],
]

test.each(CHUNKS)("chat chunks - %s: plain is %s, and plain chunks are exactly those the package accepts as they are", async (_, chunk, plain) => {
  expect(isPlainChatChunk(chunk)).toBe(plain)
  if (!plain) return
  const checked = await reference.validate!(chunk)
  expect(checked.success).toBe(true)
  // The fields the package's stream transform reads come out of its schema unchanged.
  const out = checked.success ? (checked.value as any) : undefined
  const c = chunk as any
  expect([out.id, out.created, out.model]).toEqual([c.id, c.created, c.model])
  out.choices.forEach((choice: any, i: number) => {
    expect(choice.finish_reason).toEqual(c.choices[i].finish_reason)
    if (c.choices[i].delta == null) expect(choice.delta).toEqual(c.choices[i].delta)
    else for (const key of ["role", "content", "reasoning_content", "reasoning", "refusal", "tool_calls"]) expect(choice.delta[key]).toEqual(c.choices[i].delta[key])
  })
})

test("chat chunks - a model with the check still rejects what the package rejects and accepts the rest through it", async () => {
  const checked = withPlainChunkCheck(model()) as unknown as { chunkSchema: never }
  const schema = asSchema(checked.chunkSchema)
  for (const [, chunk] of CHUNKS) {
    const ours = await schema.validate!(chunk)
    const theirs = await reference.validate!(chunk)
    expect(ours.success).toBe(theirs.success)
  }
  const usage = await schema.validate!({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } })
  expect(usage.success && (usage.value as any).usage.prompt_tokens).toBe(3)
})

// A frame as OpenAI sends it; the content literal is what varies.
const frame = (literal: string) => `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${literal}},"logprobs":null,"finish_reason":null}]}`
const learnt = (data = frame('"first"')) => {
  const frames = new PlainTextFrames()
  frames.learn(data, JSON.parse(data))
  return frames
}

const LITERALS: Array<[string, string]> = [
  ["plain text", '"hello "'],
  ["an empty string", '""'],
  ["escaped quotes and backslashes", String.raw`"say \"hi\" \\ ok"`],
  ["unicode escapes and a newline", String.raw`"caf\u00e9\n\ud83d\ude00"`],
  ["raw unicode", '"café 😀"'],
  ["text that looks like a key", String.raw`"\"content\":\"x\""`],
]

test.each(LITERALS)("chat chunks - a learnt frame reads %s as a full parse would", (_, literal) => {
  const data = frame(literal)
  expect(learnt().text(data)).toBe(JSON.parse(data).choices[0].delta.content)
})

const MISSES: Array<[string, string]> = [
  ["two literals in the slot", frame('"a","role":"assistant"')],
  ["a number in the slot", frame("5")],
  ["null in the slot", frame("null")],
  ["a raw control character (not JSON)", frame(`"a${String.fromCharCode(1)}b"`)],
  ["a bad escape", frame(String.raw`"a\qb"`)],
  ["another finish reason", frame('"x"').replace('"finish_reason":null', '"finish_reason":"stop"')],
  ["another id", frame('"x"').replace("chatcmpl-1", "chatcmpl-2")],
  ["an extra field after the delta", frame('"x"').replace('"logprobs":null', '"logprobs":null,"usage":{"prompt_tokens":1}')],
  ["an unterminated literal", frame('"x')],
]

test.each(MISSES)("chat chunks - a learnt frame leaves %s to the full parse", (_, data) => {
  expect(learnt().text(data)).toBeUndefined()
})

test("chat chunks - frames are learnt only from a chunk whose delta carries nothing but its content", () => {
  const reasoning = frame('"a"').replace('"content"', '"reasoning_content"')
  const finish = frame('"a"').replace('"finish_reason":null', '"finish_reason":"stop"')
  for (const data of [reasoning, finish]) {
    const frames = new PlainTextFrames()
    frames.learn(data, JSON.parse(data))
    expect(frames.text(data)).toBeUndefined()
  }
  // The role sent with the first delta belongs to that frame only.
  const first = frame('"a"').replace('{"content"', '{"role":"assistant","content"')
  expect(learnt(first).text(first.replace('"a"', '"b"'))).toBe("b")
  expect(learnt(first).text(frame('"b"'))).toBeUndefined()
  // A key given twice: JSON keeps the last, and so does the frame.
  const twice = frame('"a","content":"b"')
  expect(learnt(twice).text(twice.replace('"b"', '"c"'))).toBe(JSON.parse(twice.replace('"b"', '"c"')).choices[0].delta.content)
})

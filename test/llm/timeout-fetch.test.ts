import { setTimeout as sleep } from "node:timers/promises"
import { afterAll, beforeAll, expect, test } from "vitest"
import { timeoutFetch } from "../../src/llm/fetch"
import { startLLMServer, type LLMServer } from "../lib/llm-server"

// The chunk timeout watches the wire, not the reader: a slow consumer never trips it, a
// silent server does, and a body read to the end leaves no timer behind.
let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer({ strict: false, fallback: () => ({ text: ["a ", "b ", "c ", "d"] }) })
})
afterAll(() => llm.close())

const post = (f: typeof fetch) =>
  f(`${llm.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "x" }] }) })

async function readAll(res: Response, pauseMs: number): Promise<string> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ""
  while (true) {
    const { done, value } = await reader.read()
    if (done) return text
    text += decoder.decode(value, { stream: true })
    await sleep(pauseMs)
  }
}

test("timeout fetch - a reader slower than the chunk timeout gets the whole body", async () => {
  const res = await post(timeoutFetch(fetch, { chunkTimeout: 60 }))
  const text = await readAll(res, 150)
  expect(text).toContain("[DONE]")
  expect(text.match(/"content":"[abcd] ?"/g)).toHaveLength(4)
})

test("timeout fetch - a server silent for the chunk timeout fails the read with a chunk timeout", async () => {
  llm.script({ text: ["a ", "b ", "c "], hang: 2 })
  const res = await post(timeoutFetch(fetch, { chunkTimeout: 150 }))
  const started = performance.now()
  const error = await readAll(res, 0).then(() => undefined, (e: Error) => e)
  expect(error?.name).toBe("ProviderTimeoutError")
  expect(error?.message).toContain("chunk timeout")
  expect(performance.now() - started).toBeGreaterThanOrEqual(140)
})

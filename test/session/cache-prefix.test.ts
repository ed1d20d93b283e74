// Anthropic prompt caching pays only when what comes before a breakpoint stays byte-identical
// from one step to the next. A 30-step scripted session through the real core and the real
// @ai-sdk/anthropic package, checked on the request bodies the llm-server recorded.
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { prefixReport, scriptedPrefixSession } from "../lib/cache-prefix"
import { startLLMServer, type LLMServer } from "../lib/llm-server"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

test("cache prefix - over 30 steps each request repeats the previous one's bytes up to its last breakpoint, and from step 3 on at least 90% of the input is cached", async () => {
  const bodies = await scriptedPrefixSession(llm)
  expect(bodies).toHaveLength(30)
  const report = prefixReport(bodies)
  for (const step of report) {
    expect({ step: step.step, samePrefix: step.samePrefix, firstDifference: step.firstDifference }).toEqual({ step: step.step, samePrefix: true, firstDifference: -1 })
    expect(step.reachable).toBe(true)
    // Anthropic takes at most four breakpoints.
    expect(step.breakpoints.length).toBeLessThanOrEqual(4)
    expect(step.breakpoints.length).toBeGreaterThan(0)
  }
  // The breakpoint is on the newest block, so each step's whole prompt is written for the next.
  for (const step of report) expect(step.breakpoints.at(-1)).toBe(step.blocks - 1)
  const shares = report.slice(2).map((s) => s.cachedShare)
  console.log(`cache prefix: cached share of input bytes from step 3: min ${(Math.min(...shares) * 100).toFixed(1)}%, mean ${((shares.reduce((a, b) => a + b, 0) / shares.length) * 100).toFixed(1)}%`)
  for (const share of shares) expect(share).toBeGreaterThanOrEqual(0.9)
}, 120_000)

test("cache prefix - the check catches a prefix that changes: an edited older block is reported at its index", () => {
  const body = (texts: string[]) => ({
    system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
    messages: texts.map((t, i) => ({ role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: t, ...(i === texts.length - 1 ? { cache_control: { type: "ephemeral" } } : {}) }] })),
  })
  const good = prefixReport([body(["a", "b", "c"]), body(["a", "b", "c", "d", "e"])])
  expect(good[1]!.samePrefix).toBe(true)
  const bad = prefixReport([body(["a", "b", "c"]), body(["a", "B", "c", "d", "e"])])
  expect(bad[1]!.samePrefix).toBe(false)
  expect(bad[1]!.firstDifference).toBe(2)
  expect(bad[1]!.cachedShare).toBe(0)
})

// The TUI core's config follower on a real server (real files, SQLite, the scripted model):
// a bad edit is told and changes nothing; a good one waits for a running step, then reloads.
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { reloadOnConfigChange } from "../../src/cli/tui/config-reload"
import type { BusEvent } from "../../src/protocol"
import { providerConfig, writeConfig } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { startServer, type Harness } from "../server/harness"

let llm: LLMServer
let h: Harness | undefined
let stop: (() => void) | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  stop?.()
  await h?.close()
  h = undefined
  llm.reset()
})
afterAll(() => llm.close())

const until = async (what: () => boolean, ms = 20_000) => {
  for (const end = Date.now() + ms; !what(); ) {
    if (Date.now() > end) throw new Error("timed out")
    await new Promise((r) => setTimeout(r, 25))
  }
}

test("config reload - a bad edit is told naming the file and the App stays; a good one waits for the running step, then the project reloads", async () => {
  h = await startServer({ llm })
  const toasts: { message: string; variant: string }[] = []
  const emit = (e: BusEvent) => void (e.type === "tui.toast.show" && toasts.push(e.properties))
  stop = reloadOnConfigChange({ client: h.client, directory: h.box.project, env: h.box.env, home: h.box.home, emit, debounceMs: 50, pollMs: 50 })
  const first = await h.app()
  const file = path.join(h.box.project, "wright.json")

  writeConfig(h.box.project, { ...providerConfig(llm, "openai-chat"), agent: { build: { steps: "many" } } })
  await until(() => toasts.length > 0)
  expect(toasts[0]!.variant).toBe("error")
  expect(toasts[0]!.message).toContain(file)
  expect(toasts[0]!.message).toContain("agent.build.steps")
  expect(toasts[0]!.message).toContain("The previous config stays in use.")
  expect(await h.app()).toBe(first)

  // A step runs (the model hangs): the reload waits for it.
  llm.script(text("never", { hang: "after-headers" }))
  const s = await h.client.session.create({})
  await h.client.session.promptAsync(s.id, { parts: [{ type: "text", text: "wait" }] })
  await until(() => llm.requests.length > 0)
  writeConfig(h.box.project, { ...providerConfig(llm, "openai-chat"), model: "fake/chat-model", agent: { added: { mode: "primary", description: "new" } } })
  await until(() => toasts.some((t) => t.message.includes("applies once the running step ends")))
  await new Promise((r) => setTimeout(r, 300))
  expect(await h.app()).toBe(first)
  expect(toasts.some((t) => t.message.startsWith("Config reloaded"))).toBe(false)

  await h.client.session.abort(s.id)
  await until(() => toasts.some((t) => t.message === "Config reloaded: wright.json"))
  const next = await h.app()
  expect(next).not.toBe(first)
  expect((await h.client.agent.list()).map((a) => a.name)).toContain("added")
})

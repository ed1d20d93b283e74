// The official OpenCode client (@opencode-ai/sdk 1.19.3, v1 and v2 entry points) against the
// built `wright serve` on a loopback port, with the llm-server as the model.
import { createOpencodeClient as createV1 } from "@opencode-ai/sdk"
import { createOpencodeClient as createV2 } from "@opencode-ai/sdk/v2"
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { startServe, stopServe, type Served } from "./serve-helpers"

type Msg = { info: { id: string; role: string; error?: { name: string } }; parts: { type: string; text?: string }[] }
type Ev = { type: string; properties: Record<string, any> }

/** The few calls the scenario needs, over one entry point of the official SDK. */
interface Official {
  create(title: string): Promise<{ id: string; title: string }>
  subscribe(signal: AbortSignal): Promise<AsyncIterable<Ev>>
  prompt(sessionID: string, text: string): Promise<Msg>
  promptAsync(sessionID: string, text: string): Promise<void>
  allow(sessionID: string, requestID: string): Promise<boolean>
  messages(sessionID: string): Promise<Msg[]>
  fork(sessionID: string, messageID: string): Promise<{ id: string; title: string }>
  abort(sessionID: string): Promise<boolean>
}

function data<T>(r: { data?: unknown; error?: unknown; response?: Response }): T {
  if (r.error !== undefined && r.error !== null) throw new Error(`official client got an error (HTTP ${r.response?.status}): ${JSON.stringify(r.error)}`)
  return r.data as T
}

function v1(baseUrl: string, directory: string): Official {
  const c = createV1({ baseUrl, directory })
  const parts = (t: string) => [{ type: "text" as const, text: t }]
  return {
    create: async (title) => data(await c.session.create({ body: { title } })),
    subscribe: async (signal) => (await c.event.subscribe({ signal })).stream as AsyncIterable<Ev>,
    prompt: async (id, t) => data(await c.session.prompt({ path: { id }, body: { parts: parts(t) } })),
    promptAsync: async (id, t) => void data(await c.session.promptAsync({ path: { id }, body: { parts: parts(t) } })),
    allow: async (id, permissionID) => data(await c.postSessionIdPermissionsPermissionId({ path: { id, permissionID }, body: { response: "once" } })),
    messages: async (id) => data(await c.session.messages({ path: { id } })),
    fork: async (id, messageID) => data(await c.session.fork({ path: { id }, body: { messageID } })),
    abort: async (id) => data(await c.session.abort({ path: { id } })),
  }
}

function v2(baseUrl: string, directory: string): Official {
  const c = createV2({ baseUrl, directory })
  const parts = (t: string) => [{ type: "text" as const, text: t }]
  return {
    create: async (title) => data(await c.session.create({ title })),
    subscribe: async (signal) => (await c.event.subscribe(undefined, { signal })).stream as AsyncIterable<Ev>,
    prompt: async (sessionID, t) => data(await c.session.prompt({ sessionID, parts: parts(t) })),
    promptAsync: async (sessionID, t) => void data(await c.session.promptAsync({ sessionID, parts: parts(t) })),
    allow: async (_sessionID, requestID) => data(await c.permission.reply({ requestID, reply: "once" })),
    messages: async (sessionID) => data(await c.session.messages({ sessionID })),
    fork: async (sessionID, messageID) => data(await c.session.fork({ sessionID, messageID })),
    abort: async (sessionID) => data(await c.session.abort({ sessionID })),
  }
}

let llm: LLMServer
let served: Served | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  if (served) await stopServe(served)
  served = undefined
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

describe.each([
  ["v1", v1],
  ["v2", v2],
] as const)("official sdk - %s entry point", (name, make) => {
  test(`official sdk - ${name}: prompt with a permission ask, tool and text events, messages, fork, abort mid-stream`, async () => {
    const box = sandbox()
    writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), permission: { bash: "ask" } })
    served = await startServe(box)
    const client = make(served.url, box.project)

    const session = await client.create("official client")
    expect(session.title).toBe("official client")

    const controller = new AbortController()
    const events: Ev[] = []
    const waiters: { pred: (e: Ev) => boolean; resolve: (e: Ev) => void }[] = []
    const stream = await client.subscribe(controller.signal)
    const pump = (async () => {
      try {
        for await (const e of stream) {
          events.push(e)
          for (const w of [...waiters]) if (w.pred(e)) waiters.splice(waiters.indexOf(w), 1), w.resolve(e)
        }
      } catch {
        // aborted
      }
    })()
    const wait = (pred: (e: Ev) => boolean) =>
      events.find(pred) ??
      new Promise<Ev>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`event not seen; got ${events.map((e) => e.type).join(", ")}`)), 20_000)
        waiters.push({ pred, resolve: (e) => (clearTimeout(timer), resolve(e)) })
      })
    await wait((e) => e.type === "server.connected")

    llm.script(toolCall("bash", { command: "echo official-sdk-ran", description: "Echo a marker" }), text("All done through the official client."))
    const answered = client.prompt(session.id, "run the marker command")
    const asked = await wait((e) => e.type === "permission.asked" && e.properties.sessionID === session.id)
    expect(asked.properties.permission).toBe("bash")
    expect(await client.allow(session.id, asked.properties.id)).toBe(true)
    const answer = await answered
    expect(answer.info.role).toBe("assistant")
    expect(answer.parts.filter((p) => p.type === "text").map((p) => p.text).join("")).toBe("All done through the official client.")

    const toolDone = await wait((e) => e.type === "message.part.updated" && e.properties.part.type === "tool" && e.properties.part.state.status === "completed")
    expect(toolDone.properties.part.state.output).toContain("official-sdk-ran")
    await wait((e) => e.type === "message.part.updated" && e.properties.part.type === "text" && e.properties.part.text === "All done through the official client.")

    const messages = await client.messages(session.id)
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "assistant"])

    // Forking at the second answer keeps what came before it.
    const forked = await client.fork(session.id, messages[2]!.info.id)
    expect(forked.title).toBe("official client (fork #1)")
    expect((await client.messages(forked.id)).map((m) => m.info.role)).toEqual(["user", "assistant"])

    llm.script({ text: Array.from({ length: 50 }, (_, i) => `chunk${i} `), hang: 20 })
    await client.promptAsync(session.id, "stream for ever")
    await wait((e) => e.type === "message.part.delta" && e.properties.sessionID === session.id && e.properties.delta.startsWith("chunk"))
    expect(await client.abort(session.id)).toBe(true)
    await wait((e) => e.type === "session.idle" && e.properties.sessionID === session.id && events.indexOf(e) > events.findIndex((x) => x.type === "message.part.delta" && String(x.properties.delta).startsWith("chunk")))
    const last = (await client.messages(session.id)).at(-1)!
    expect(last.info.role).toBe("assistant")
    expect(last.info.error?.name).toBe("MessageAbortedError")

    controller.abort()
    await pump
  })
})

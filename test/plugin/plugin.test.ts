import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { prompt, testCore } from "../lib/core"
import { sandbox } from "../lib/e2e"

let llm: LLMServer
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(() => {
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

// A TypeScript plugin in the project's .wright/plugin/ that records each hook call, in order,
// into calls.log, and changes what it may change.
const RECORDER = `
import type { Plugin } from "@opencode-ai/plugin"
import { tool } from "@opencode-ai/plugin"
import { appendFileSync } from "node:fs"
import path from "node:path"

export const Recorder: Plugin = async ({ directory, worktree, project, client, $ }) => {
  const log = (line: string) => appendFileSync(path.join(directory, "calls.log"), line + "\\n")
  const word: string = await $\`printf %s \${"two words"}\`.text()
  const failed = await $\`exit 3\`.nothrow()
  log(\`init \${word} \${failed.exitCode} \${directory === worktree} \${typeof project.id}\`)
  const agents = await client.app.agents()
  log(\`client \${Array.isArray(agents.data) && agents.data.some((a: any) => a.name === "build")}\`)
  return {
    config: async (config: any) => log(\`config \${config.model}\`),
    event: async ({ event }) => {
      if (event.type === "session.created") log("event session.created")
    },
    "chat.message": async (input, output) => {
      log(\`chat.message \${input.agent} \${output.parts.length}\`)
      output.parts.push({ type: "text", text: "PLUGIN-NOTE: the user is testing", synthetic: true, id: "prt_zzzz_plugin", sessionID: input.sessionID, messageID: output.message.id } as any)
    },
    "chat.params": async (input, output) => {
      log(\`chat.params \${input.agent}\`)
      output.temperature = 0.25
      output.options.user = "plugin-user"
    },
    "chat.headers": async (_input, output) => {
      log("chat.headers")
      output.headers["x-from-plugin"] = "yes"
    },
    "experimental.chat.messages.transform": async (_input, output) => {
      log(\`messages.transform \${output.messages.length}\`)
      const last = output.messages.at(-1)
      if (last) last.parts.push({ type: "text", text: "TRANSFORMED-FOR-THE-MODEL" } as any)
    },
    "experimental.chat.system.transform": async (_input, output) => {
      log("system.transform")
      output.system.push("SYSTEM-FROM-PLUGIN")
    },
    "tool.execute.before": async (input, output) => {
      log(\`tool.execute.before \${input.tool}\`)
      if (input.tool === "shout") output.args.text = output.args.text + "!"
    },
    "permission.ask": async (input: any, output) => {
      log(\`permission.ask \${input.permission}\`)
      if (input.permission === "shout") output.status = "allow"
    },
    "shell.env": async (_input, output) => {
      output.env.PLUGIN_VAR = "from-shell-env"
    },
    "tool.execute.after": async (input, output) => {
      log(\`tool.execute.after \${input.tool}\`)
      if (input.tool === "shout") output.output += " [after]"
    },
    "tool.definition": async (input, output) => {
      if (input.toolID !== "shout") return
      log("tool.definition shout")
      output.description = "SHOUT-DESCRIBED-BY-PLUGIN"
      output.parameters.properties.text.description = "the words to shout, in lower case"
    },
    "experimental.text.complete": async (input, output) => {
      log(\`text.complete \${input.partID.startsWith("prt_") && input.messageID.startsWith("msg_")}\`)
      output.text += " [checked]"
    },
    "command.execute.before": async (input, output) => {
      log(\`command.execute.before \${input.command} \${input.arguments}\`)
      output.parts.push({ type: "text", text: "COMMAND-PART-FROM-PLUGIN" } as any)
    },
    "experimental.provider.small_model": async (input, output) => {
      log(\`small_model \${input.provider.id}\`)
      output.model = { ...(input.provider as any).models["tiny-model"], id: "tiny-model", providerID: input.provider.id } as any
    },
    tool: {
      shout: tool({
        description: "Shouts the text back",
        args: { text: tool.schema.string().describe("what to shout") },
        async execute(args, ctx) {
          log(\`shout.execute \${args.text} \${ctx.agent}\`)
          return args.text.toUpperCase()
        },
      }),
    },
  }
}
`

const GREET_TOOL = `
import { tool } from "@opencode-ai/plugin"
export default tool({
  description: "Greets someone",
  args: { name: tool.schema.string() },
  async execute(args) { return "hello " + args.name },
})
export const loud = tool({
  description: "Greets someone loudly",
  args: { name: tool.schema.string() },
  async execute(args, ctx) { return { title: "loud greeting", output: "HELLO " + args.name.toUpperCase() + " in " + ctx.directory.length, metadata: { loud: true } } },
})
`

const LIMIT = { context: 200_000, output: 8_000 }

test("plugin - a local TS plugin and custom tool files: every hook runs in order, tools are named as OpenCode names them", async () => {
  const core = await testCore({
    llm,
    config: {
      permission: { shout: "ask" },
      command: { hello: { template: "Say hello to $ARGUMENTS" } },
      provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${llm.url}/v1`, apiKey: "test-key" }, models: { "chat-model": { limit: LIMIT }, "tiny-model": { limit: LIMIT } } } },
    },
    globalConfig: { experimental: { plugin_timeout: 20_000 } },
    files: { ".wright/plugin/recorder.ts": RECORDER, ".wright/tool/greet.ts": GREET_TOOL },
  })
  try {
    llm.script(
      toolCall("shout", { text: "hi" }),
      toolCall("bash", { command: "echo $PLUGIN_VAR", description: "Show the variable" }),
      toolCall("greet_loud", { name: "bob" }),
      toolCall("greet", { name: "ann" }),
      text("done"),
    )
    const session = await core.client.session.create()
    await core.client.session.prompt(session.id, prompt("go"))
    const project = core.box.project

    const first = llm.requests[0]!
    expect(first.body.temperature).toBe(0.25)
    expect(first.headers["x-from-plugin"]).toBe("yes")
    const system = first.body.messages.filter((m: { role: string }) => m.role === "system").map((m: { content: string }) => m.content)
    expect(system.at(-1)).toContain("SYSTEM-FROM-PLUGIN")
    const userText = JSON.stringify(first.body.messages.filter((m: { role: string }) => m.role === "user"))
    expect(userText).toContain("PLUGIN-NOTE: the user is testing")
    expect(userText).toContain("TRANSFORMED-FOR-THE-MODEL")
    // The model saw the transformed copy; the stored message is as it was.
    const stored = await core.client.session.messages(session.id)
    expect(JSON.stringify(stored[0]!.parts)).not.toContain("TRANSFORMED-FOR-THE-MODEL")
    const toolNames = first.body.tools.map((t: { function: { name: string } }) => t.function.name)
    expect(toolNames).toEqual(expect.arrayContaining(["shout", "greet", "greet_loud"]))
    // tool.definition edited what the model is told about shout, and only that.
    const shout = first.body.tools.find((t: { function: { name: string } }) => t.function.name === "shout").function
    expect(shout.description).toBe("SHOUT-DESCRIBED-BY-PLUGIN")
    expect(shout.parameters.properties.text.description).toBe("the words to shout, in lower case")
    expect(first.body.tools.find((t: { function: { name: string } }) => t.function.name === "greet").function.description).toBe("Greets someone")

    const results = (i: number) => llm.requests[i]!.body.messages.filter((m: { role: string }) => m.role === "tool").at(-1)!.content
    expect(results(1)).toBe("HI! [after]")
    expect(results(2)).toContain("from-shell-env")
    expect(results(3)).toMatch(/^HELLO BOB in \d+$/)
    expect(results(4)).toBe("hello ann")

    // experimental.text.complete rewrote the finished text; the stored answer is the rewritten one.
    const answer = stored.at(-1)!.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text).join("")
    expect(answer).toBe("done [checked]")
    // experimental.provider.small_model chose the model that names the session.
    await vi.waitFor(() => expect(llm.side.find((r) => r.headers["x-wright-request"] === "title")?.body.model).toBe("tiny-model"), { timeout: 20_000 })

    // command.execute.before added a part to what the expanded command sends.
    llm.script(text("hello sent"))
    await core.client.session.command(session.id, { command: "hello", arguments: "world" })
    const commandUser = llm.requests.at(-1)!.body.messages.filter((m: { role: string }) => m.role === "user").at(-1)
    const commandText = typeof commandUser.content === "string" ? commandUser.content : commandUser.content.map((c: { text?: string }) => c.text ?? "").join("\n")
    expect(commandText).toContain("Say hello to world")
    expect(commandText).toContain("COMMAND-PART-FROM-PLUGIN")

    const calls = readFileSync(path.join(project, "calls.log"), "utf8").trim().split("\n")
    expect(calls.slice(0, 3)).toEqual(["init two words 3 true string", "client true", "config fake/chat-model"])
    const turn = calls.slice(3)
    // The order of one turn: the message, then per step system → params → headers, the tool's before, its ask, its run, its after.
    expect(turn.slice(0, 13)).toEqual([
      "event session.created",
      "chat.message build 1",
      "small_model fake",
      "tool.definition shout",
      "system.transform",
      "messages.transform 1",
      "chat.params build",
      "chat.headers",
      "tool.execute.before shout",
      "permission.ask shout",
      "shout.execute hi! build",
      "tool.execute.after shout",
      "tool.definition shout",
    ])
    expect(turn).toContain("tool.execute.before bash")
    expect(turn).toContain("tool.execute.after greet_loud")
    // The last step's text completes once; then the command: its hook runs before its message's.
    const command = turn.indexOf("command.execute.before hello world")
    expect(turn.filter((l) => l.startsWith("text.complete"))).toEqual(["text.complete true", "text.complete true"])
    expect(turn.lastIndexOf("text.complete true")).toBeGreaterThan(command)
    expect(turn[command + 1]).toBe("chat.message build 2")

    const list = await core.app.plugins()
    expect(list.map((p) => [p.name, p.kind, p.status])).toEqual([
      ["recorder", "file", "loaded"],
      ["greet", "tool", "loaded"],
    ])
    expect(list[0]!.tools).toEqual(["shout"])
    expect(list[0]!.hooks).toEqual(expect.arrayContaining(["event", "chat.message", "tool.execute.before", "tool.execute.after", "permission.ask", "shell.env"]))
    expect(list[1]!.tools).toEqual(["greet", "greet_loud"])
  } finally {
    await core.close()
  }
}, 120_000)

test("plugin - before a compaction: the PreCompact hook runs and experimental.session.compacting adds context to the summary request", async () => {
  const core = await testCore({
    llm,
    config: { hooks: { PreCompact: [{ hooks: [{ type: "command", command: `cat > "$CLAUDE_PROJECT_DIR/precompact.json"` }] }] } },
    files: {
      ".wright/plugin/compact.ts": `export const Keep = async () => ({ "experimental.session.compacting": async (input: { sessionID: string }, output: { context: string[] }) => { output.context.push("KEEP-THE-DEPLOY-NOTES for " + input.sessionID) } })\n`,
    },
  })
  try {
    llm.script(text("first answer"), text("## Summary\nshort"))
    const session = await core.client.session.create()
    await core.client.session.prompt(session.id, prompt("remember the deploy notes"))
    await core.client.session.summarize(session.id, { providerID: "fake", modelID: "chat-model" })
    const request = JSON.stringify(llm.requests[1]!.body.messages.filter((m: { role: string }) => m.role === "user"))
    expect(request).toContain(`KEEP-THE-DEPLOY-NOTES for ${session.id}`)
    const pre = JSON.parse(readFileSync(path.join(core.box.project, "precompact.json"), "utf8"))
    expect([pre.hook_event_name, pre.trigger, pre.session_id]).toEqual(["PreCompact", "manual", session.id])
  } finally {
    await core.close()
  }
}, 120_000)

test("plugin - chat.params' topK reaches the provider (Anthropic's top_k)", async () => {
  const core = await testCore({
    llm,
    protocol: "anthropic",
    // The Anthropic package drops sampling parameters for the claude-* ids it does not know; this id is not one.
    config: {
      model: "fakeanthropic/sampler",
      provider: { fakeanthropic: { npm: "@ai-sdk/anthropic", options: { baseURL: `${llm.url}/v1`, apiKey: "k" }, models: { sampler: { limit: LIMIT } } } },
    },
    files: { ".wright/plugin/topk.ts": `export const TopK = async () => ({ "chat.params": async (_input: unknown, output: { topK?: number }) => { output.topK = 7 } })\n` },
  })
  try {
    llm.script(text("sampled"))
    const session = await core.client.session.create()
    await core.client.session.prompt(session.id, prompt("hi"))
    expect(llm.requests[0]!.body.top_k).toBe(7)
  } finally {
    await core.close()
  }
}, 120_000)

test("plugin - experimental.compaction.autocontinue: enabled = false ends the run after an automatic compaction instead of adding the continue turn", async () => {
  const core = await testCore({
    llm,
    config: {
      model: "fake/small",
      provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${llm.url}/v1`, apiKey: "k" }, models: { small: { limit: { context: 20_000, output: 4_000 } } } } },
      compaction: { preserve_recent_tokens: 2_000 },
    },
    files: {
      "big.txt": "lorem ipsum dolor sit amet, consectetur adipiscing\n".repeat(1500),
      ".wright/plugin/stay.ts": `import { appendFileSync } from "node:fs"
export const Stay = async ({ directory }: { directory: string }) => ({
  "experimental.compaction.autocontinue": async (input: any, output: { enabled: boolean }) => {
    appendFileSync(directory + "/autocontinue.log", [input.sessionID, input.agent, input.model.id, input.message.role, input.overflow].join(" ") + "\\n")
    output.enabled = false
  },
})
`,
    },
  })
  try {
    const session = await core.client.session.create()
    llm.script(text("Noted.", { usage: { input: 3000, output: 50 } }))
    await core.client.session.prompt(session.id, prompt("Our task: tidy up big.txt."))
    llm.script(toolCall("read", { filePath: "big.txt" }, { usage: { input: 17_000, output: 40 } }), text("## Objective\n- Tidy big.txt", { usage: { input: 5000, output: 60 } }))
    await core.client.session.prompt(session.id, prompt("now read big.txt and tidy it"))
    // Three requests: the first turn, the read, the summary; no fourth "continue" request.
    expect(llm.requests).toHaveLength(3)
    expect(core.events.some((e) => e.type === "session.compacted")).toBe(true)
    const parts = core.app.sessions.messages(session.id).flatMap((m) => m.parts)
    expect(parts.some((p) => p.type === "text" && p.text.startsWith("Continue if you have next steps"))).toBe(false)
    expect(readFileSync(path.join(core.box.project, "autocontinue.log"), "utf8")).toBe(`${session.id} build small user false\n`)
  } finally {
    await core.close()
  }
}, 120_000)

test("plugin - WRIGHT_PURE (--pure) runs without plugins, custom tools and command hooks", async () => {
  const box = sandbox()
  box.env.WRIGHT_PURE = "1"
  const core = await testCore({
    llm,
    box,
    config: { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo HOOK-CONTEXT" }] }] } },
    files: { ".wright/tool/greet.ts": GREET_TOOL, ".wright/plugin/note.ts": `export const Note = async () => ({ "chat.params": async (_i: unknown, o: { temperature?: number }) => { o.temperature = 0.5 } })\n` },
  })
  try {
    llm.script(text("plain"))
    const session = await core.client.session.create()
    await core.client.session.prompt(session.id, prompt("hi"))
    const body = llm.requests[0]!.body
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).not.toContain("greet")
    expect(body.temperature).toBeUndefined()
    expect(JSON.stringify(body.messages)).not.toContain("HOOK-CONTEXT")
    expect(core.app.extended).toBe(false)
    expect(await core.app.plugins()).toEqual([])
  } finally {
    await core.close()
  }
}, 120_000)

test("plugin - an auth plugin's loader supplies the key, headers and fetch of a provider the user has logged in to", async () => {
  const box = sandbox()
  const authFile = path.join(box.env.XDG_DATA_HOME!, "wright", "auth.json")
  mkdirSync(path.dirname(authFile), { recursive: true, mode: 0o700 })
  writeFileSync(authFile, JSON.stringify({ fake: { type: "oauth", access: "tok-123", refresh: "r", expires: 0 } }), { mode: 0o600 })
  const core = await testCore({
    llm,
    box,
    config: { provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${llm.url}/v1` }, models: { "chat-model": { limit: LIMIT } } } } },
    files: {
      ".wright/plugin/login.ts": `
export const Login = async () => ({
  auth: {
    provider: "fake",
    methods: [],
    async loader(getAuth: () => Promise<any>, provider: any) {
      const auth = await getAuth()
      return {
        apiKey: auth.access + "-for-" + provider.id,
        headers: { "x-auth-plugin": auth.type },
        async fetch(input: any, init: any) {
          const headers = new Headers(init?.headers)
          headers.set("x-plugin-fetch", "yes")
          return fetch(input, { ...init, headers })
        },
      }
    },
  },
  // A plugin for another provider is not asked.
})
export const Other = async () => ({ auth: { provider: "elsewhere", methods: [], async loader() { throw new Error("not this one") } } })
`,
    },
  })
  try {
    llm.script(text("authorised"))
    const session = await core.client.session.create()
    await core.client.session.prompt(session.id, prompt("hi"))
    const headers = llm.requests[0]!.headers
    expect(headers.authorization).toBe("Bearer tok-123-for-fake")
    expect(headers["x-auth-plugin"]).toBe("oauth")
    expect(headers["x-plugin-fetch"]).toBe("yes")
  } finally {
    await core.close()
  }
}, 120_000)

test("plugin - without stored credentials an auth plugin's loader is not called", async () => {
  const core = await testCore({
    llm,
    files: { ".wright/plugin/login.ts": `export const Login = async () => ({ auth: { provider: "fake", methods: [], async loader() { return { headers: { "x-auth-plugin": "called" } } } } })\n` },
  })
  try {
    llm.script(text("plain"))
    const session = await core.client.session.create()
    await core.client.session.prompt(session.id, prompt("hi"))
    expect(llm.requests[0]!.headers["x-auth-plugin"]).toBeUndefined()
    expect(llm.requests[0]!.headers.authorization).toBe("Bearer test-key")
  } finally {
    await core.close()
  }
}, 120_000)

test("plugin - a provider hook's models replace the provider's list, and a prompt can use one of them", async () => {
  const core = await testCore({
    llm,
    files: {
      ".wright/plugin/models.ts": `
export const Models = async () => ({
  provider: {
    id: "fake",
    async models(provider: any, ctx: any) {
      return {
        "plugin-model": {
          id: "plugin-model", providerID: provider.id, api: { id: "served-model-id", url: "", npm: "" }, name: "From plugin " + (ctx.auth === undefined),
          capabilities: { temperature: true, reasoning: false, attachment: false, toolcall: true },
          cost: { input: 1, output: 2, cache: { read: 0, write: 0 } }, limit: { context: 64000, output: 4000 }, status: "active", options: {}, headers: {}, release_date: "2026-01-01",
        },
      }
    },
  },
})
`,
    },
  })
  try {
    llm.script(text("from the plugin's model"))
    const session = await core.client.session.create()
    await core.client.session.prompt(session.id, prompt("hi", { model: { providerID: "fake", modelID: "plugin-model" } }))
    expect(llm.requests[0]!.body.model).toBe("served-model-id")
    const fake = core.app.providers.all().find((p) => p.id === "fake")!
    expect(Object.keys(fake.models)).toEqual(["plugin-model"])
    expect(fake.models["plugin-model"]!.name).toBe("From plugin true")
    expect(fake.models["plugin-model"]!.limit.context).toBe(64000)
  } finally {
    await core.close()
  }
}, 120_000)

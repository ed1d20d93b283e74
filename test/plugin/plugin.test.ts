import { readFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { prompt, testCore } from "../lib/core"

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

test("plugin - a local TS plugin and custom tool files: every hook runs in order, tools are named as OpenCode names them", async () => {
  const core = await testCore({
    llm,
    config: { permission: { shout: "ask" }, experimental: { plugin_timeout: 20_000 } },
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

    const results = (i: number) => llm.requests[i]!.body.messages.filter((m: { role: string }) => m.role === "tool").at(-1)!.content
    expect(results(1)).toBe("HI! [after]")
    expect(results(2)).toContain("from-shell-env")
    expect(results(3)).toMatch(/^HELLO BOB in \d+$/)
    expect(results(4)).toBe("hello ann")

    const calls = readFileSync(path.join(project, "calls.log"), "utf8").trim().split("\n")
    expect(calls.slice(0, 3)).toEqual(["init two words 3 true string", "client true", "config fake/chat-model"])
    const turn = calls.slice(3)
    // The order of one turn: the message, then per step system → params → headers, the tool's before, its ask, its run, its after.
    expect(turn.slice(0, 10)).toEqual([
      "event session.created",
      "chat.message build 1",
      "system.transform",
      "messages.transform 1",
      "chat.params build",
      "chat.headers",
      "tool.execute.before shout",
      "permission.ask shout",
      "shout.execute hi! build",
      "tool.execute.after shout",
    ])
    expect(turn).toContain("tool.execute.before bash")
    expect(turn).toContain("tool.execute.after greet_loud")

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

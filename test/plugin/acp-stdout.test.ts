// A plugin that prints (console.log, console.info, process.stdout.write) while `wright acp`
// serves an editor: stdout is the protocol channel and must carry JSON-RPC only; what the
// plugin prints goes to stderr. Runs the built binary (npm run build).
import * as acp from "@agentclientprotocol/sdk"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { chunks, initialize, protocolOnly, startEditor, type Editor } from "../acp/harness"
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"

let llm: LLMServer
const open: Editor[] = []
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  for (const e of open.splice(0)) await e.close()
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

const NOISY = `
export const Noisy = async () => {
  console.log("NOISY-LOAD console.log")
  process.stdout.write("NOISY-LOAD stdout.write\\n")
  return {
    event: async ({ event }: any) => {
      if (event.type === "session.created") console.info("NOISY-EVENT console.info")
    },
    "chat.params": async () => {
      console.log("NOISY-PARAMS console.log", { nested: true })
      console.debug("NOISY-PARAMS console.debug")
      process.stdout.write("NOISY-PARAMS stdout.write\\n")
    },
  }
}
`

test("plugin - a plugin that prints while wright acp serves: stdout stays JSON-RPC, the plugin's lines go to stderr", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(llm, "openai-chat"))
  mkdirSync(path.join(box.project, ".wright", "plugin"), { recursive: true })
  writeFileSync(path.join(box.project, ".wright", "plugin", "noisy.ts"), NOISY)
  const editor = await startEditor(box)
  open.push(editor)
  await initialize(editor)
  const session = await editor.agent.request(acp.methods.agent.session.new, { cwd: box.project, mcpServers: [] })
  llm.script(text("quiet answer"))
  const done = await editor.agent.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: "text", text: "hi" }] })
  expect(done.stopReason).toBe("end_turn")
  expect(chunks(editor.updates, "agent_message_chunk")).toBe("quiet answer")
  expect(await editor.close()).toBe(0)

  expect(protocolOnly(editor.stdout())).toBe(true)
  expect(editor.stdout()).not.toContain("NOISY")
  for (const line of ["NOISY-LOAD console.log", "NOISY-LOAD stdout.write", "NOISY-EVENT console.info", "NOISY-PARAMS console.log", "NOISY-PARAMS console.debug", "NOISY-PARAMS stdout.write"]) expect(editor.stderr()).toContain(line)
}, 120_000)

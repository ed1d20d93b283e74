// `wright run --command NAME args…` through the BUILT binary (run `node scripts/build.mjs`
// first), against the scripted llm-server.
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { providerConfig, sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"
import { text } from "../lib/llm-server"

const server = useLLMServer()

function project() {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  const file = path.join(box.project, ".wright/command/greet.md")
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, "---\ndescription: greet someone\n---\nGreet $1 warmly and mention $2. Today is !`echo Tuesday`.\n")
  return box
}

/** Text of the last user message in an openai-chat request body. */
function lastUserText(body: { messages: { role: string; content: unknown }[] }): string {
  const user = body.messages.filter((m) => m.role === "user").at(-1)!
  if (typeof user.content === "string") return user.content
  return (user.content as { text?: string }[]).map((c) => c.text ?? "").join("\n")
}

describe("run --command", () => {
  test("run --command - a Markdown command with arguments reaches the model expanded", async () => {
    const box = project()
    server.script(text("Hello Ada, and hello to the whole team!"))

    const r = await wright(["run", "--command", "greet", "Ada", "the whole team"], { cwd: box.project, env: box.env })
    expect(r.stderr).not.toMatch(/Error/)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("Hello Ada, and hello to the whole team!")
    expect(server.requests).toHaveLength(1)
    expect(lastUserText(server.requests[0]!.body)).toBe("Greet Ada warmly and mention the whole team. Today is Tuesday.")
  })

  test("run --command - an unknown command fails with the list of available commands", async () => {
    const box = project()
    const r = await wright(["run", "--command", "gret", "Ada"], { cwd: box.project, env: box.env })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Command not found: "gret". Available commands: greet, init')
    expect(server.requests).toHaveLength(0)
  })
})

import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { text, toolCall } from "../lib/llm-server"
import { providerConfig, sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

test("skills - a .claude/skills skill is offered to the model and loads through the built binary", async () => {
  const box = sandbox()
  mkdirSync(path.join(box.project, ".git"))
  const dir = path.join(box.project, ".claude", "skills", "changelog")
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, "SKILL.md"), "---\nname: changelog\ndescription: Write the changelog entry. Use before a release.\n---\nAlways group entries by Added/Fixed.\n")
  // The same name in the user's ~/.claude: the project's wins, as in OpenCode, and the clash is named.
  const userSkill = path.join(box.home, ".claude", "skills", "changelog", "SKILL.md")
  mkdirSync(path.dirname(userSkill), { recursive: true })
  writeFileSync(userSkill, "---\nname: changelog\ndescription: The user's older changelog skill.\n---\nOld body.\n")
  writeConfig(box.project, { ...providerConfig(server, "openai-chat"), permission: { skill: "allow" }, share: "auto" })
  server.script(toolCall("skill", { name: "changelog" }), text("Grouped as the skill says."))

  const r = await wright(["run", "write the changelog"], { cwd: box.project, env: box.env })
  expect(r.stderr).not.toMatch(/Error:/)
  expect(r.code).toBe(0)
  const offered = JSON.stringify(server.requests[0]!.body)
  expect(offered).toContain("<name>changelog</name>")
  expect(offered).toContain("Write the changelog entry. Use before a release.")
  // The model's call loaded the body from .claude/skills.
  expect(JSON.stringify(server.requests[1]!.body)).toContain("Always group entries by Added/Fixed.")
  expect(offered).not.toContain("The user's older changelog skill.")
  expect(r.stdout).toContain("Grouped as the skill says.")
  expect(r.stderr).toContain(`Warning: skill "changelog": ${path.join(dir, "SKILL.md")} replaces ${userSkill} (same name)`)
  // A key wright does not act on is named, not silently accepted.
  expect(r.stderr).toContain(`Warning: ${path.join(box.project, "wright.json")}: "share" ignored: sharing sessions is not supported`)
})

// The plan agent's rules applied to real paths through the write tool: only the plan file
// itself, not a path that leads elsewhere through `..` or a symlink, is writable.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { createAgents } from "../../src/agent"
import { parseConfigText } from "../../src/config"
import { judge } from "../../src/permission"
import { runTool, writeTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

const plan = createAgents({ config: parseConfigText("{}", "wright.json"), dirs: [], toolOutputDir: "/tmp/wright-tool-output", home: "/home/u" }).require("plan")

/** A plan-agent context: each ask is judged by the plan agent's rules; a deny throws, as the pipeline's does. */
function planContext(directory: string) {
  return toolContext({
    directory,
    decide(req) {
      const verdict = judge(req.permission, req.patterns, plan.permission)
      if (verdict.action === "deny") throw new Error(`denied: ${req.permission} ${verdict.pattern}`)
    },
  })
}

function project() {
  const dir = tempDir("wright-plan-")
  mkdirSync(path.join(dir, "src"))
  writeFileSync(path.join(dir, "src", "app.ts"), "original\n")
  return dir
}

test("plan file - the plan agent writes its plan file (the folder is made), and nothing else", async () => {
  const dir = project()
  await runTool(writeTool, { filePath: ".wright/plans/ses_1.md", content: "# Plan\n" }, planContext(dir))
  expect(readFileSync(path.join(dir, ".wright/plans/ses_1.md"), "utf8")).toBe("# Plan\n")
  await expect(runTool(writeTool, { filePath: "src/app.ts", content: "x" }, planContext(dir))).rejects.toThrow(/denied: edit src\/app.ts/)
  await expect(runTool(writeTool, { filePath: ".wright/wright.json", content: "{}" }, planContext(dir))).rejects.toThrow(/denied/)
  expect(existsSync(path.join(dir, ".wright/wright.json"))).toBe(false)
})

test("plan file - `..` or a symlink under .wright/plans cannot reach a source file or wright's config", async () => {
  const dir = project()
  await expect(runTool(writeTool, { filePath: ".wright/plans/../../src/app.ts", content: "x" }, planContext(dir))).rejects.toThrow(/denied/)
  await expect(runTool(writeTool, { filePath: ".wright/plans/../plugin/evil.md", content: "x" }, planContext(dir))).rejects.toThrow(/denied/)
  mkdirSync(path.join(dir, ".wright/plans"), { recursive: true })
  symlinkSync(path.join(dir, "src/app.ts"), path.join(dir, ".wright/plans/evil.md"))
  await expect(runTool(writeTool, { filePath: ".wright/plans/evil.md", content: "x" }, planContext(dir))).rejects.toThrow(/denied: edit src\/app.ts/)
  expect(readFileSync(path.join(dir, "src/app.ts"), "utf8")).toBe("original\n")
  // The plans folder itself a link into the sources.
  const other = project()
  mkdirSync(path.join(other, ".wright"))
  symlinkSync(path.join(other, "src"), path.join(other, ".wright/plans"))
  await expect(runTool(writeTool, { filePath: ".wright/plans/notes.md", content: "x" }, planContext(other))).rejects.toThrow(/denied: edit src\/notes.md/)
  expect(existsSync(path.join(other, "src/notes.md"))).toBe(false)
})

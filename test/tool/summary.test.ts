// The specification of how each built-in tool call looks to a person: title, ACP kind and
// locations (relative to the worktree, with a line where one is known). A summary is computed
// from whatever the model sent, so odd input must give a plain summary, never a throw.
import { writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import type { ToolState, ToolSummary } from "../../src/protocol"
import { createStructuredOutputTool } from "../../src/session/structured"
import { createTaskTool, type TaskDeps } from "../../src/session/task"
import {
  applyPatchTool,
  bash,
  createSkillTool,
  editTool,
  globTool,
  grepTool,
  invalid,
  listTool,
  question,
  readTool,
  runTool,
  summarize,
  todoread,
  todowrite,
  webfetch,
  writeTool,
  createWebsearch,
  type Tool,
} from "../../src/tool"
import { toolContext } from "../lib/tool-context"

// The session runs in a package of a repository: relative input resolves against the package,
// summaries show paths against the repository root.
const project = { directory: "/repo/pkg", worktree: "/repo" }
const running: ToolState = { status: "running", input: {}, time: { start: 1 } }
const completed = (metadata: Record<string, unknown>): ToolState => ({ status: "completed", input: {}, output: "", title: "", metadata, time: { start: 1, end: 2 } })

const skill = createSkillTool([{ name: "release", description: "Cut a release", location: "/repo/.wright/skills/release/SKILL.md", content: "# Release" }])
// The task tool only lists the subagents in its description; nothing else of the deps is touched.
const task = createTaskTool({ agents: { list: () => [], get: () => undefined } } as unknown as TaskDeps)
const structured = createStructuredOutputTool({ type: "object" }, () => {}, () => {})

const websearch = createWebsearch({ provider: "searxng", url: "http://127.0.0.1:8888" }, { env: {}, storedKey: () => undefined })

const patch = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`

const table: [string, Tool, Record<string, unknown>, ToolState, ToolSummary][] = [
  ["read a relative file", readTool, { filePath: "src/a.ts" }, running, { title: "Read pkg/src/a.ts", kind: "read", locations: [{ path: "pkg/src/a.ts" }] }],
  ["read from a line", readTool, { filePath: "/repo/src/a.ts", offset: 40 }, running, { title: "Read src/a.ts:40", kind: "read", locations: [{ path: "src/a.ts", line: 40 }] }],
  ["read a range, offset as a string", readTool, { filePath: "/repo/a.ts", offset: "10", limit: 5 }, running, { title: "Read a.ts:10-14", kind: "read", locations: [{ path: "a.ts", line: 10 }] }],
  ["read outside the project stays absolute", readTool, { filePath: "/etc/hosts" }, running, { title: "Read /etc/hosts", kind: "read", locations: [{ path: "/etc/hosts" }] }],
  ["read with a bad offset has no line", readTool, { filePath: "/repo/a.ts", offset: -3 }, running, { title: "Read a.ts", kind: "read", locations: [{ path: "a.ts" }] }],
  ["write", writeTool, { filePath: "../README.md", content: "x" }, running, { title: "Write README.md", kind: "edit", locations: [{ path: "README.md" }] }],
  ["edit while running", editTool, { filePath: "/repo/src/a.ts", oldString: "a", newString: "b" }, running, { title: "Edit src/a.ts", kind: "edit", locations: [{ path: "src/a.ts" }] }],
  [
    "edit once done: the line of its first change",
    editTool,
    { filePath: "/repo/src/a.ts" },
    completed({ diff: "--- a\n+++ a\n@@ -10,4 +10,4 @@\n one\n two\n-three\n+THREE\n four\n" }),
    { title: "Edit src/a.ts", kind: "edit", locations: [{ path: "src/a.ts", line: 12 }] },
  ],
  [
    "apply_patch of one file",
    applyPatchTool,
    { patchText: patch("*** Update File: src/a.ts\n@@\n-a\n+b") },
    running,
    { title: "Patch pkg/src/a.ts", kind: "edit", locations: [{ path: "pkg/src/a.ts" }] },
  ],
  [
    "apply_patch of several files, a line once applied",
    applyPatchTool,
    { patchText: patch("*** Add File: /repo/new.ts\n+x\n*** Update File: /repo/old.ts\n*** Move to: /repo/moved.ts\n@@\n-a\n+b\n*** Delete File: /repo/gone.ts") },
    completed({ files: [{ filePath: "/repo/old.ts", movePath: "/repo/moved.ts", diff: "@@ -3,1 +3,1 @@\n-a\n+b\n" }, null, 7] }),
    { title: "Patch 3 files", kind: "edit", locations: [{ path: "new.ts" }, { path: "old.ts" }, { path: "moved.ts", line: 3 }, { path: "gone.ts" }] },
  ],
  ["apply_patch that only deletes", applyPatchTool, { patchText: patch("*** Delete File: /repo/a.ts") }, running, { title: "Delete a.ts", kind: "delete", locations: [{ path: "a.ts" }] }],
  [
    "apply_patch that only moves",
    applyPatchTool,
    { patchText: patch("*** Update File: /repo/a.ts\n*** Move to: /repo/b.ts\n@@\n x") },
    running,
    { title: "Move a.ts → b.ts", kind: "move", locations: [{ path: "a.ts" }, { path: "b.ts" }] },
  ],
  ["apply_patch still streaming", applyPatchTool, { patchText: "*** Begin Patch\n*** Add File: /repo/n" }, running, { title: "Create n", kind: "edit", locations: [{ path: "n" }] }],
  ["bash shows the command", bash, { command: "npm test", description: "Run the tests" }, running, { title: "$ npm test", kind: "execute", locations: [] }],
  ["bash: first line of a long script", bash, { command: "cat <<EOF > x\nhello\nEOF", workdir: "/repo/web" }, running, { title: "$ cat <<EOF > x …", kind: "execute", locations: [{ path: "web" }] }],
  ["glob in the session's directory", globTool, { pattern: "**/*.ts" }, running, { title: 'Glob "**/*.ts" in pkg', kind: "search", locations: [{ path: "pkg" }] }],
  ["glob at the root", globTool, { pattern: "*.md", path: "/repo" }, running, { title: 'Glob "*.md"', kind: "search", locations: [{ path: "." }] }],
  ["grep with a path and a filter", grepTool, { pattern: "\\bfoo\\b", path: "src", include: "*.ts" }, running, { title: 'Grep "\\bfoo\\b" in pkg/src (*.ts)', kind: "search", locations: [{ path: "pkg/src" }] }],
  ["list", listTool, { path: "/repo/docs" }, running, { title: "List docs", kind: "search", locations: [{ path: "docs" }] }],
  [
    "todowrite counts what is done",
    todowrite,
    { todos: [{ content: "a", status: "completed", priority: "high" }, { content: "b", status: "pending", priority: "low" }] },
    running,
    { title: "Update todos (1/2 done)", kind: "think", locations: [] },
  ],
  ["todoread", todoread, {}, running, { title: "Read todos", kind: "think", locations: [] }],
  ["webfetch", webfetch, { url: "https://example.com/docs" }, running, { title: "Fetch https://example.com/docs", kind: "fetch", locations: [] }],
  ["websearch", websearch, { query: "node 20\nrelease" }, running, { title: 'Search "node 20 …"', kind: "fetch", locations: [] }],
  ["question: one", question, { questions: [{ question: "Which database?", header: "Database", options: [] }] }, running, { title: "Ask: Database", kind: "other", locations: [] }],
  ["question: several", question, { questions: [{ question: "a" }, { question: "b" }] }, running, { title: "Ask 2 questions", kind: "other", locations: [] }],
  ["skill names its file", skill, { name: "release" }, running, { title: "Load skill release", kind: "read", locations: [{ path: ".wright/skills/release/SKILL.md" }] }],
  ["skill unknown", skill, { name: "nope" }, running, { title: "Load skill nope", kind: "read", locations: [] }],
  ["task", task, { description: "Find the parser bug", prompt: "…", subagent_type: "explore" }, running, { title: "Find the parser bug (@explore)", kind: "think", locations: [] }],
  ["invalid", invalid, { tool: "bsh", error: "unknown tool" }, running, { title: "Invalid call to bsh", kind: "other", locations: [] }],
  ["StructuredOutput", structured, { anything: 1 }, running, { title: "Structured output", kind: "other", locations: [] }],
]

describe("tool summary", () => {
  test.each(table)("tool summary - %s", (_name, tool, input, state, expected) => {
    expect(tool.summary!(input, state, project)).toEqual(expected)
  })

  const tools = [readTool, writeTool, editTool, applyPatchTool, bash, globTool, grepTool, listTool, todowrite, todoread, webfetch, websearch, question, skill, task, invalid, structured]
  const odd: Record<string, unknown>[] = [
    {},
    { filePath: 42, offset: {}, limit: null, patchText: ["x"], command: 7, pattern: "", path: { a: 1 }, url: false, todos: "all", questions: [null], name: [], description: 3, tool: {} },
    { filePath: "   ", command: "\n\n", todos: [null, 1, { status: "completed" }], questions: "?" },
  ]
  test("tool summary - every built-in tool has one, and odd input gives a plain summary instead of a throw", () => {
    for (const tool of tools) {
      expect(tool.summary, tool.id).toBeTypeOf("function")
      for (const input of odd) {
        for (const state of [running, completed({ diff: 5, files: "x" })]) {
          const summary = tool.summary!(input, state, project)
          expect(summary.title, tool.id).not.toBe("")
          expect(summary.locations.every((l) => typeof l.path === "string" && l.path !== ""), tool.id).toBe(true)
        }
      }
    }
    expect(readTool.summary!({}, running, project)).toEqual({ title: "Read", kind: "read", locations: [] })
    expect(bash.summary!({ command: 7 }, running, project)).toEqual({ title: "$", kind: "execute", locations: [] })
  })

  test("tool summary - summarize falls back to the tool's name for tools without one, and for one that throws", () => {
    const mcp = { ...readTool, id: "github_search", summary: undefined }
    expect(summarize(mcp, "github_search", {}, running, project)).toEqual({ title: "github_search", kind: "other", locations: [] })
    expect(summarize(undefined, "nope", {}, running, project)).toEqual({ title: "nope", kind: "other", locations: [] })
    const broken: Tool = { ...readTool, summary: () => { throw new Error("bad") } }
    expect(summarize(broken, "read", {}, running, project)).toEqual({ title: "read", kind: "other", locations: [] })
  })

  test("tool summary - an edit the tool really made names the line it changed", async () => {
    const ctx = toolContext()
    const file = path.join(ctx.directory, "a.ts")
    writeFileSync(file, "one\ntwo\nthree\nfour\nfive\n")
    const input = { filePath: "a.ts", oldString: "four", newString: "FOUR" }
    const result = await runTool(editTool, input, ctx)
    const summary = editTool.summary!(input, completed(result.metadata), ctx)
    expect(summary).toEqual({ title: "Edit a.ts", kind: "edit", locations: [{ path: "a.ts", line: 4 }] })
  })
})

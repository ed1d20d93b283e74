// The bash tool inside the OS sandbox (real bwrap): a command the sandbox stopped is reported
// as such to the model, and the `sandbox_escape` permission decides whether it runs again
// outside: allowed once, it runs unconfined; rejected or denied, the model reads why; the
// user's own `!cmd` (byUser) is never escalated.
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test as base } from "vitest"
import { createExec, resolveSandbox, type Sandbox } from "../../src/process"
import { PermissionDeniedError, PermissionRejectedError } from "../../src/protocol"
import { runTool, type AskRequest } from "../../src/tool"
import { bash } from "../../src/tool/bash"
import { tempDir, toolContext } from "../lib/tool-context"
import { requires } from "../lib/requires"

// The sandbox is bubblewrap: without bwrap these tests are skipped, saying so.
const test = base.skipIf(requires("bwrap"))

const boxes: Sandbox[] = []
afterEach(() => {
  for (const b of boxes.splice(0)) if (b.state === "on") b.dispose()
})

async function setup(decide?: (req: AskRequest) => void) {
  const home = tempDir("wright-bash-sbx-")
  const project = path.join(home, "project")
  mkdirSync(project)
  const env = { PATH: process.env.PATH, HOME: home }
  const box = await resolveSandbox({ config: {}, worktree: project, directory: project, env, home, restrictReads: false })
  boxes.push(box)
  expect(box.state).toBe("on")
  const ctx = toolContext({ directory: project, exec: createExec({ env }), sandbox: box, decide })
  return { home, project, ctx, outside: path.join(home, "outside.txt") }
}

const escapes = (asks: AskRequest[]) => asks.filter((a) => a.permission === "sandbox_escape")

test("bash sandbox - a write outside fails; approved once, the command runs again outside and the write lands", async () => {
  const { ctx, outside } = await setup()
  const result = await runTool(bash, { command: `echo hi > ${outside}` }, ctx)
  expect(escapes(ctx.asks)).toEqual([expect.objectContaining({ patterns: [`echo hi > ${outside}`], always: [`echo hi > ${outside}`] })])
  expect(readFileSync(outside, "utf8")).toBe("hi\n")
  expect(result.output).toContain("wright's sandbox blocked a write to")
  expect(result.output).toContain("The user allowed running it outside the sandbox")
  expect(result.metadata.sandbox).toBe("escaped")
})

test("bash sandbox - rejected: nothing runs outside, the model is told it was the sandbox and that the user declined", async () => {
  const { ctx, outside } = await setup((req) => {
    if (req.permission === "sandbox_escape") throw new PermissionRejectedError({ message: "The user rejected permission to use this specific tool call." })
  })
  const result = await runTool(bash, { command: `echo hi > ${outside}` }, ctx)
  expect(existsSync(outside)).toBe(false)
  expect(escapes(ctx.asks)).toHaveLength(1)
  expect(result.output).toMatch(/Read-only file system/)
  expect(result.output).toMatch(/wright's sandbox blocked a write to .*outside\.txt/)
  expect(result.output).toContain("The user declined to run it outside the sandbox")
  expect(result.metadata.sandbox).toBe("blocked")
})

test("bash sandbox - denied by a rule: no second run, the note says the rules deny it", async () => {
  const { ctx, outside } = await setup((req) => {
    if (req.permission === "sandbox_escape") throw new PermissionDeniedError({ message: "denied by rule" })
  })
  const result = await runTool(bash, { command: `touch ${outside}` }, ctx)
  expect(existsSync(outside)).toBe(false)
  expect(result.output).toContain("denied by the permission rules (sandbox_escape)")
})

test("bash sandbox - the user's own !cmd is not escalated: no ask, no second run", async () => {
  const { ctx, outside } = await setup()
  ctx.byUser = true
  const result = await runTool(bash, { command: `echo hi > ${outside}` }, ctx)
  expect(escapes(ctx.asks)).toEqual([])
  expect(existsSync(outside)).toBe(false)
  expect(result.output).toContain("Run it in your own terminal")
})

test("bash sandbox - a failure that is not the sandbox's asks nothing and adds no note", async () => {
  const { ctx, project } = await setup()
  const result = await runTool(bash, { command: "echo inside > in.txt && ls no-such-file" }, ctx)
  expect(escapes(ctx.asks)).toEqual([])
  expect(result.output).not.toContain("sandbox")
  expect(readFileSync(path.join(project, "in.txt"), "utf8")).toBe("inside\n")
})

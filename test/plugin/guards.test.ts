// Plugins' guards at the pipeline's before point, loaded from real files the way the App loads
// them: a `tool.execute.before` that throws or runs out of time blocks that call with its
// reason and keeps guarding the next; another hook that fails is turned off alone, so it
// cannot take the plugin's guard with it. Command hooks: a PreToolUse past its timeout blocks.
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { createExtensions } from "../../src/plugin"
import { createExec } from "../../src/process"
import { tempDir } from "../lib/tool-context"

async function extensions(plugins: Record<string, string>, opts: { timeout?: number; hooks?: Record<string, unknown> } = {}) {
  const dir = tempDir("wright-guards-")
  const config = path.join(dir, ".wright")
  mkdirSync(path.join(config, "plugin"), { recursive: true })
  for (const [name, source] of Object.entries(plugins)) writeFileSync(path.join(config, "plugin", name), source)
  const reports: string[] = []
  const ext = await createExtensions({
    config: { hooks: opts.hooks as never },
    dirs: [config],
    untrusted: [],
    directory: dir,
    worktree: dir,
    projectID: "global",
    exec: createExec({ env: { PATH: process.env.PATH } }),
    cacheDir: path.join(dir, "cache"),
    fetch: () => undefined,
    timeout: opts.timeout ?? 5_000,
    report: (m) => reports.push(m),
    progress: () => {},
  })
  await ext.ready()
  return { ext, reports, dir }
}

const call = (command: string, n = 1) => ({ origin: "model", tool: "bash", sessionID: "ses_1", messageID: "msg_1", callID: `call_${n}`, agent: "build", args: { command } })

test("plugin guards - a tool.execute.before that throws blocks that call with its message; the plugin stays on and checks the next call", async () => {
  const { ext, reports } = await extensions({
    "guard.js": `export const Guard = async () => ({
  "tool.execute.before": async (input, output) => { if (/rm/.test(output.args.command)) throw new Error("no rm: " + output.args.command) },
})\n`,
  })
  expect(await ext.beforeExecute(call("rm -rf x", 1))).toEqual({ block: true, reason: "Plugin guard blocked this call: no rm: rm -rf x" })
  expect(await ext.beforeExecute(call("rm y", 2))).toEqual({ block: true, reason: "Plugin guard blocked this call: no rm: rm y" })
  expect(await ext.beforeExecute(call("ls", 3))).toEqual({ args: { command: "ls" } })
  expect(ext.list()[0]).toMatchObject({ name: "guard", status: "loaded" })
  expect(reports).toEqual([])
  await ext.dispose()
})

test("plugin guards - a tool.execute.before that runs out of time blocks the call and is reported; both plugins keep guarding", async () => {
  const { ext, reports } = await extensions(
    {
      "a-slow.js": `export const Slow = async () => ({ "tool.execute.before": async (input, output) => { if (output.args.command === "hang") await new Promise(() => {}) } })\n`,
      "b-rewrite.js": `export const Rewrite = async () => ({ "tool.execute.before": async (input, output) => { output.args.command += " --checked" } })\n`,
    },
    { timeout: 300 },
  )
  const blocked = await ext.beforeExecute(call("hang", 1))
  expect(blocked).toEqual({ block: true, reason: "Plugin a-slow's tool.execute.before hook did not finish within 300 ms, so this call was blocked." })
  expect(reports).toEqual([blocked!.reason])
  // Both plugins still guard: the next call goes through each of them.
  expect(await ext.beforeExecute(call("ls", 2))).toEqual({ args: { command: "ls --checked" } })
  expect(ext.list().map((p) => p.status)).toEqual(["loaded", "loaded"])
  await ext.dispose()
})

test("plugin guards - another hook that throws is turned off alone: the plugin's guard keeps blocking", async () => {
  const { ext, reports } = await extensions({
    "guard.js": `export const Guard = async () => ({
  "tool.execute.after": async () => { throw new Error("after broke") },
  "tool.execute.before": async (input, output) => { if (/rm/.test(output.args.command)) throw new Error("no rm") },
})\n`,
  })
  const final = { status: "completed" as const, output: "ok", title: "", metadata: {} }
  expect(await ext.afterFinalize(call("ls", 1), final)).toEqual({ output: "ok", title: "", metadata: {} })
  expect(reports).toEqual(["Plugin guard failed in its tool.execute.after hook: after broke; that hook is off for this session, its other hooks keep running"])
  expect(await ext.beforeExecute(call("rm x", 2))).toEqual({ block: true, reason: "Plugin guard blocked this call: no rm" })
  await ext.dispose()
})

test("plugin guards - a PreToolUse command hook past its timeout blocks the call; exit 1 stays a non-blocking error as in Claude Code", async () => {
  const { ext, reports, dir } = await extensions(
    {},
    {
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null; if [ -e hang ]; then sleep 10; fi", timeout: 1 }] },
          { matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null; exit 1" }] },
        ],
      },
    },
  )
  expect(await ext.beforeExecute(call("echo fine", 1))).toBeUndefined()
  expect(reports.some((r) => r.includes("failed with exit code 1"))).toBe(true)
  writeFileSync(path.join(dir, "hang"), "")
  const blocked = await ext.beforeExecute(call("echo fine", 2))
  expect(blocked?.block).toBe(true)
  expect(blocked?.reason).toMatch(/^A PreToolUse hook \(.*sleep 10.*\) did not finish within 1 s, so this Bash call was blocked\.$/)
  await ext.dispose()
})

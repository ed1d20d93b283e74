import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs"
import path from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { afterEach, describe, expect, it } from "vitest"
import { runTool } from "../../src/tool"
import { bash } from "../../src/tool/bash"
import { tempDir, toolContext, type TestContext } from "../lib/tool-context"

/** A zombie (killed, not yet reaped by init) counts as dead. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

async function waitUntil(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await sleep(25)
  return check()
}

const started: number[] = []
afterEach(() => {
  // Never leave a stray process behind if an assertion failed before the kill was checked.
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL")
})

function run(ctx: TestContext, input: Record<string, unknown>) {
  return runTool(bash, input, ctx)
}

describe("bash", () => {
  it("bash - a command that reads stdin gets end-of-file at once", async () => {
    const result = await run(toolContext(), { command: "cat; echo after-cat", timeout: 20_000 })
    expect(result.output).toBe("after-cat\n")
    expect(result.metadata.exit).toBe(0)
  })

  it("bash - a timeout kills the command and the children it started", async () => {
    const ctx = toolContext()
    // Long enough for the shell to write its child's pid first, on a loaded machine too.
    const result = await run(ctx, { command: "(sleep 600 & echo $! > child.pid; wait)", timeout: 1500 })
    const child = Number(readFileSync(path.join(ctx.directory, "child.pid"), "utf8"))
    started.push(child)
    expect(result.output).toContain("<shell_metadata>\nshell tool terminated command after exceeding timeout 1500 ms")
    expect(result.metadata.exit).toBeNull()
    expect(result.metadata.signal).toBe("SIGTERM")
    expect(await waitUntil(() => !alive(child))).toBe(true)
  })

  it("bash - aborting the call kills the process group and says so", async () => {
    const ctx = toolContext()
    const pending = run(ctx, { command: "echo started; sleep 600 & echo $! > child.pid; wait" })
    await waitUntil(() => ctx.updates.some((u) => String(u.metadata?.output).includes("started")))
    ctx.controller.abort()
    const result = await pending
    const child = Number(readFileSync(path.join(ctx.directory, "child.pid"), "utf8"))
    started.push(child)
    expect(result.output).toContain("started")
    expect(result.output).toContain("<shell_metadata>\nUser aborted the command")
    expect(await waitUntil(() => !alive(child))).toBe(true)
  })

  it("bash - 10 MB of output returns the tail and saves the full text", async () => {
    const ctx = toolContext()
    const result = await run(ctx, { command: "yes 0123456789 | head -c 10485760; echo; echo LAST-LINE" })
    expect(result.metadata.truncated).toBe(true)
    expect(result.output.endsWith("LAST-LINE\n")).toBe(true)
    expect(result.output).toContain("lines truncated")
    expect(Buffer.byteLength(result.output)).toBeLessThan(ctx.limits.maxBytes + 1024)
    const saved = result.metadata.outputPath as string
    expect(result.output).toContain(`The full output was saved to: ${saved}`)
    expect(statSync(saved).size).toBe(10_485_760 + "\nLAST-LINE\n".length)
    const full = readFileSync(saved, "utf8")
    expect(full.startsWith("0123456789\n0123456789\n")).toBe(true)
    expect(full.endsWith("\nLAST-LINE\n")).toBe(true)
    expect((result.metadata.output as string).length).toBeLessThanOrEqual(30_000)
    rmSync(ctx.directory, { recursive: true, force: true })
  })

  it("bash - many short lines are cut to the last ones", async () => {
    const ctx = toolContext()
    const result = await run(ctx, { command: "seq 1 5000" })
    expect(result.metadata.truncated).toBe(true)
    expect(result.output).toMatch(/\n4999\n5000\n$/)
    expect(result.output).not.toMatch(/^1$/m)
    expect(readFileSync(result.metadata.outputPath as string, "utf8")).toBe(Array.from({ length: 5000 }, (_, i) => i + 1).join("\n") + "\n")
  })

  it("bash - exit code and signal are reported", async () => {
    const failed = await run(toolContext(), { command: "echo out; exit 3" })
    expect(failed.metadata.exit).toBe(3)
    expect(failed.metadata.signal).toBeNull()
    expect(failed.output).toBe("out\n\n<shell_metadata>\nExit code: 3\n</shell_metadata>")

    const killed = await run(toolContext(), { command: "kill -KILL $$" })
    expect(killed.metadata.exit).toBeNull()
    expect(killed.metadata.signal).toBe("SIGKILL")
    expect(killed.output).toContain("Terminated by signal: SIGKILL")

    const ok = await run(toolContext(), { command: "true" })
    expect(ok.output).toBe("(no output)")
    expect(ok.metadata).toMatchObject({ exit: 0, signal: null, truncated: false })
  })

  it("bash - stderr is captured with stdout", async () => {
    const result = await run(toolContext(), { command: "echo to-out; echo to-err >&2" })
    expect(result.output).toContain("to-out\n")
    expect(result.output).toContain("to-err\n")
  })

  it("bash - output is streamed into the running part's metadata", async () => {
    const ctx = toolContext()
    const result = await run(ctx, { command: "for i in 1 2 3; do echo tick$i; sleep 0.2; done", description: "Counts to three" })
    const outputs = ctx.updates.map((u) => String(u.metadata?.output ?? ""))
    expect(outputs.some((o) => o.includes("tick1") && !o.includes("tick3"))).toBe(true)
    expect(ctx.updates.every((u) => u.title === "Counts to three" && u.metadata?.description === "Counts to three")).toBe(true)
    expect(result.title).toBe("Counts to three")
    expect(result.metadata.output).toBe("tick1\ntick2\ntick3\n")
  })

  it("bash - the title is the command when there is no description", async () => {
    expect((await run(toolContext(), { command: "echo hi" })).title).toBe("echo hi")
  })

  it("bash - runs with a dumb terminal and no pager", async () => {
    const result = await run(toolContext(), { command: 'echo "$TERM $PAGER $GIT_PAGER"' })
    expect(result.output).toBe("dumb cat cat\n")
  })

  it("bash - workdir is resolved against the project directory", async () => {
    const ctx = toolContext()
    mkdirSync(path.join(ctx.directory, "sub"))
    const result = await run(ctx, { command: "pwd", workdir: "sub" })
    expect(result.output).toBe(path.join(ctx.directory, "sub") + "\n")
    expect(ctx.asks.some((a) => a.permission === "external_directory")).toBe(false)
    await expect(run(ctx, { command: "pwd", workdir: "missing" })).rejects.toThrow("workdir does not exist")
  })

  it("bash - a workdir outside the project asks for external_directory first", async () => {
    const outside = tempDir()
    const ctx = toolContext()
    const result = await run(ctx, { command: "pwd", workdir: outside })
    expect(result.output).toBe(outside + "\n")
    expect(ctx.asks[0]).toMatchObject({ permission: "external_directory" })
    expect(ctx.asks[0]!.patterns[0]).toContain(outside)

    const denied = toolContext({ decide: (req) => (req.permission === "external_directory" ? Promise.reject(new Error("no")) : undefined) })
    await expect(run(denied, { command: "touch marker", workdir: outside })).rejects.toThrow("no")
    expect(existsSync(path.join(outside, "marker"))).toBe(false)
  })

  it("bash - the command's permission requests are asked before it runs", async () => {
    const ctx = toolContext()
    await run(ctx, { command: "touch allowed-marker && echo done" })
    const asked = ctx.asks.filter((a) => a.permission === "bash")
    expect(asked.flatMap((a) => a.patterns)).toEqual(expect.arrayContaining(["touch allowed-marker", "echo done"]))
    expect(asked.flatMap((a) => a.always)).toEqual(expect.arrayContaining(["touch *", "echo *"]))
    expect(existsSync(path.join(ctx.directory, "allowed-marker"))).toBe(true)

    const rejected = toolContext({ decide: () => Promise.reject(new Error("The user rejected permission")) })
    await expect(run(rejected, { command: "touch rejected-marker" })).rejects.toThrow("The user rejected permission")
    expect(rejected.asks.length).toBeGreaterThan(0)
    expect(existsSync(path.join(rejected.directory, "rejected-marker"))).toBe(false)
  })

  it("bash - a negative timeout is an error and nothing runs", async () => {
    const ctx = toolContext()
    await expect(run(ctx, { command: "touch marker", timeout: -5 })).rejects.toThrow("Invalid timeout value: -5")
    expect(existsSync(path.join(ctx.directory, "marker"))).toBe(false)
  })

  it("bash - WRIGHT_BASH_DEFAULT_TIMEOUT_MS changes the default timeout", async () => {
    const before = process.env.WRIGHT_BASH_DEFAULT_TIMEOUT_MS
    process.env.WRIGHT_BASH_DEFAULT_TIMEOUT_MS = "300"
    try {
      const result = await run(toolContext(), { command: "sleep 600" })
      expect(result.output).toContain("exceeding timeout 300 ms")
    } finally {
      if (before === undefined) delete process.env.WRIGHT_BASH_DEFAULT_TIMEOUT_MS
      else process.env.WRIGHT_BASH_DEFAULT_TIMEOUT_MS = before
    }
  })
})

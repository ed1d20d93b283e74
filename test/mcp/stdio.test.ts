import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test } from "vitest"
import { runTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"
import { FILESYSTEM_SERVER, FIXTURE_SERVER, server, testMcp } from "./harness"

const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const m of open.splice(0)) await m.close()
})

async function started(opts: Parameters<typeof testMcp>[0]) {
  const t = testMcp(opts)
  open.push(t.mcp)
  await t.mcp.start()
  return t
}

function alive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Polls `check` for up to 20 s by the clock (a count of short sleeps gave a loaded machine 5 s). */
async function until(check: () => boolean, what: string) {
  for (const end = Date.now() + 20_000; !check() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25))
  if (!check()) throw new Error(`timed out waiting until ${what}`)
}

test("mcp stdio - the real filesystem server lists its tools and reads a file; a path outside its root is a tool error", async () => {
  const root = tempDir()
  writeFileSync(path.join(root, "hello.txt"), "hello from mcp\n")
  const { mcp, registry } = await started({ mcp: { files: { type: "local", command: [process.execPath, FILESYSTEM_SERVER, root] } } })
  expect(mcp.status()).toEqual({ files: { status: "connected" } })
  const ids = registry.all().map((t) => t.id)
  expect(ids).toHaveLength(14)
  expect(ids).toEqual(expect.arrayContaining(["files_read_text_file", "files_list_directory", "files_write_file"]))
  expect(registry.get("files_read_text_file")!.jsonSchema).toMatchObject({ type: "object", required: ["path"] })

  const ctx = toolContext({ directory: root })
  const read = await runTool(registry.get("files_read_text_file")!, { path: path.join(root, "hello.txt") }, ctx)
  expect(read.output).toBe("hello from mcp\n")
  expect(ctx.asks[0]).toMatchObject({ permission: "files_read_text_file", patterns: ["*"] })
  await expect(runTool(registry.get("files_read_text_file")!, { path: "/etc/hostname" }, ctx)).rejects.toThrow("Access denied - path outside allowed directories")
})

test("mcp stdio - a server that fails to start is failed with its stderr, and the other servers still connect", async () => {
  const good = server("good")
  good.registerTool("ping", { description: "ping" }, async () => ({ content: [{ type: "text", text: "pong" }] }))
  const { mcp, registry } = await started({
    servers: { good },
    mcp: {
      broken: { type: "local", command: [process.execPath, "-e", "console.error('missing FIXTURE_TOKEN in the environment'); process.exit(3)"] },
      files: { type: "local", command: [process.execPath, FILESYSTEM_SERVER, "/no/such/dir/for/wright"] },
      absent: { type: "local", command: ["wright-no-such-mcp-server"] },
    },
  })
  const status = mcp.status()
  expect(status.good).toEqual({ status: "connected" })
  expect(status.broken).toMatchObject({ status: "failed", error: expect.stringContaining("missing FIXTURE_TOKEN in the environment") })
  expect(status.files).toMatchObject({ status: "failed", error: expect.stringContaining("None of the specified directories are accessible") })
  expect(status.absent).toEqual({ status: "failed", error: "Command not found: wright-no-such-mcp-server (check mcp.absent.command and PATH)" })
  expect(registry.all().map((t) => t.id)).toEqual(["good_ping"])
})

test("mcp stdio - a server that never answers initialize fails after its timeout and is stopped", async () => {
  const pidFile = path.join(tempDir(), "pid")
  const script = `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`
  const { mcp } = await started({ mcp: { mute: { type: "local", command: [process.execPath, "-e", script], timeout: 2000 } } })
  // 2 s: a node that starts slowly on a loaded machine has written its pid file by then.
  expect(mcp.status().mute).toEqual({ status: "failed", error: "No answer to initialize within 2000 ms (raise mcp.mute.timeout to wait longer)" })
  const pid = Number(readFileSync(pidFile, "utf8"))
  await until(() => !alive(pid), "the silent server is gone")
})

test("mcp stdio - a local server runs in the project directory (or its cwd) with the configured environment on top of ours", async () => {
  const project = tempDir()
  mkdirSync(path.join(project, "sub"))
  const { registry } = await started({
    directory: project,
    env: { ...process.env, FIXTURE_VALUE: "from wright" },
    mcp: {
      a: { type: "local", command: [process.execPath, FIXTURE_SERVER] },
      b: { type: "local", command: [process.execPath, FIXTURE_SERVER], cwd: "sub", environment: { FIXTURE_VALUE: "from config" } },
    },
  })
  const where = async (id: string) => JSON.parse((await runTool(registry.get(id)!, {}, toolContext())).output)
  expect(await where("a_where")).toEqual({ cwd: project, value: "from wright" })
  expect(await where("b_where")).toEqual({ cwd: path.join(project, "sub"), value: "from config" })
})

test("mcp stdio - closing ends the server and the processes it started", async () => {
  const pidFile = path.join(tempDir(), "child.pid")
  const t = testMcp({ mcp: { kids: { type: "local", command: [process.execPath, FIXTURE_SERVER], environment: { FIXTURE_CHILD_PID: pidFile } } } })
  await t.mcp.start()
  expect(t.mcp.status().kids).toEqual({ status: "connected" })
  const child = Number(readFileSync(pidFile, "utf8"))
  expect(alive(child)).toBe(true)
  await t.mcp.close()
  await until(() => !alive(child), "the helper process is gone")
})

test("mcp stdio - a server that dies later turns failed with its last stderr, and its tools leave the registry", async () => {
  const t = await started({ mcp: { fx: { type: "local", command: [process.execPath, FIXTURE_SERVER] } } })
  expect(t.registry.get("fx_echo")).toBeDefined()
  const gone = t.nextChange("fx")
  await expect(runTool(t.registry.get("fx_crash")!, {}, toolContext())).rejects.toThrow('MCP server "fx" failed to run crash')
  await gone
  expect(t.mcp.status().fx).toMatchObject({ status: "failed", error: expect.stringContaining("fixture: out of memory, exiting") })
  expect(t.registry.all()).toEqual([])
  expect(t.mcp.tools()).toEqual([])
})

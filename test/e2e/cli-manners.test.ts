// The command line behaves like a well-kept CLI, through the built binary: a closed pipe ends
// output quietly, a mistyped command gets "did you mean".
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { text } from "../lib/llm-server"
import { LAUNCHER, providerConfig, sandbox, type Sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"

const server = useLLMServer()

/**
 * `wright <args> | true`: the reader is gone before wright writes. Its exit code and stderr.
 * Not spawnSync: the scripted model answers from this process.
 */
function intoClosedPipe(box: Sandbox, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const script = `set -o pipefail; "$@" </dev/null | true`
  const child = spawn("bash", ["-c", script, "bash", LAUNCHER, ...args], { cwd: box.project, env: { ...box.env, WRIGHT_NODE: process.execPath } })
  let stderr = ""
  child.stderr.on("data", (d) => (stderr += d))
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
  return new Promise((resolve) => child.on("close", (code) => (clearTimeout(timer), resolve({ code, stderr }))))
}

test("cli - a closed pipe ends output quietly: models, session list and run exit 0 with nothing on stderr", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  server.script(text("first answer"))
  expect((await wright(["run", "hello"], { cwd: box.project, env: box.env })).code).toBe(0)
  for (const args of [["models"], ["session", "list"], ["agent", "list"]]) {
    expect(await intoClosedPipe(box, args), args.join(" ")).toEqual({ code: 0, stderr: "" })
  }
  server.script(text("an answer long enough to be written ".repeat(50)))
  const run = await intoClosedPipe(box, ["run", "-c", "again"])
  expect(run.stderr).not.toContain("EPIPE")
  expect(run.code).toBe(0)
})

test("cli - a mistyped command gets 'did you mean', not the help or a complaint about its arguments", async () => {
  const box = sandbox()
  const opts = { cwd: box.project, env: box.env }
  const rnu = await wright(["rnu", "hi"], opts)
  expect(rnu.code).toBe(1)
  expect(rnu.stderr.trim()).toBe("Error: Unknown command 'rnu'. Did you mean 'run'?")
  const modles = await wright(["modles"], opts)
  expect(modles.stderr.trim()).toBe("Error: Unknown command 'modles'. Did you mean 'models'?")
  // Far from every command and not a directory: a clear error naming both readings.
  const far = await wright(["xyzzy"], opts)
  expect(far.code).toBe(1)
  expect(far.stderr).toContain("Unknown command 'xyzzy'")
  expect(far.stderr).toContain("not a directory")
  expect(far.stderr.split("\n").length).toBeLessThan(5)
  // A directory whose name is close to a command is still a project.
  writeFileSync(path.join(box.project, "marker"), "")
  const dir = await wright(["project"], { cwd: box.home, env: box.env })
  expect(dir.stderr).not.toContain("Unknown command")
})

test("cli - models marks one default, the model run would use", async () => {
  const box = sandbox()
  const env = { ...box.env, ANTHROPIC_API_KEY: "sk-ant-test", OPENAI_API_KEY: "sk-test" }
  const marked = async () => (await wright(["models"], { cwd: box.project, env })).stdout.split("\n").filter((l) => l.endsWith(" (default)"))
  expect(await marked()).toHaveLength(1)
  writeConfig(box.project, { model: "openai/gpt-5" })
  expect(await marked()).toEqual(["openai/gpt-5 (default)"])
})

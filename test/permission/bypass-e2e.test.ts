// The bypass corpus end to end (issue 12): `wright run` (the built binary) against the
// scripted model, which makes every attempt's tool calls in one session; the effects are then
// checked on disk and at a local HTTP sink. A control run with everything allowed shows every
// attempt works; the deny run (rm, curl and git push denied, external_directory denied,
// vcs_config and anything unreadable asked, which `run` refuses) must show none of them.
// The runner takes the sandbox mode; "on" runs once the config has the `sandbox` key.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"
import { afterAll, beforeAll, describe as base, expect, it } from "vitest"
import { Config } from "../../src/config/schema"
import { providerConfig, sandbox, wright, writeConfig, type Result, type Sandbox } from "../lib/e2e"
import { startLLMServer, text, toolCall, type LLMServer } from "../lib/llm-server"
import { ATTEMPTS, type Attempt, type Kind, fill } from "./bypass-e2e-corpus"
import { requires } from "../lib/requires"

// The corpus plays in a git repository: without git it is skipped, saying so.
const describe = base.skipIf(requires("git"))

const SANDBOX_SUPPORTED = "sandbox" in Config.shape

const DENY = {
  bash: { "*": "allow", "rm *": "deny", "curl *": "deny", "git push *": "deny" },
  external_directory: "deny",
}

interface CorpusRun {
  box: Sandbox
  outside: string
  hits: Set<string>
  result: Result
  failures: string[]
}

let server: LLMServer
let sink: http.Server
let sinkUrl: string
const hits = new Set<string>()

beforeAll(async () => {
  server = await startLLMServer()
  sink = http.createServer((req, res) => {
    hits.add((req.url ?? "").replace(/^\//, ""))
    res.end("ok\n")
  })
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve))
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`
})

afterAll(async () => {
  await server.close()
  await new Promise((resolve) => sink.close(resolve))
})

function git(cwd: string, ...args: string[]) {
  execFileSync("git", args, { cwd, stdio: "ignore", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } })
}

/** A project (a git repository with seed files, payloads and one victim per attempt) and a directory beside it. */
function setup(): { box: Sandbox; outside: string } {
  const box = sandbox()
  const p = (...parts: string[]) => path.join(box.project, ...parts)
  const outside = path.join(box.home, "outside")
  mkdirSync(outside)
  writeFileSync(path.join(outside, "secret.txt"), "TOPSECRET\n")
  for (const dir of ["v", "r", "payload"]) mkdirSync(p(dir))
  writeFileSync(p("seed.txt"), "alpha\nbeta\n")
  writeFileSync(p("payload", "del.mjs"), "import fs from 'node:fs'\nfs.rmSync(process.env.V)\n")
  writeFileSync(p("payload", "del.cjs"), "require('fs').rmSync(process.env.V)\n")
  writeFileSync(p("payload", "pydel.py"), "import os\nos.remove(os.environ['V'])\n")
  writeFileSync(p("payload", "__init__.py"), "")
  writeFileSync(p("payload", "noop.js"), "\n")
  writeFileSync(p("payload", "noop.pl"), "1;\n")
  writeFileSync(p("payload", "rmv.sh"), 'rm "$V"\n')
  writeFileSync(p(".gitignore"), "v/\nr/\n")
  git(box.project, "init", "-q")
  git(box.project, "config", "user.name", "t")
  git(box.project, "config", "user.email", "t@t")
  git(box.project, "add", "seed.txt", "payload", ".gitignore")
  git(box.project, "commit", "-qm", "seed")
  for (const a of ATTEMPTS) writeFileSync(p("v", a.id), "victim\n")
  box.env.GIT_AUTHOR_NAME = box.env.GIT_COMMITTER_NAME = "t"
  box.env.GIT_AUTHOR_EMAIL = box.env.GIT_COMMITTER_EMAIL = "t@t"
  return { box, outside }
}

async function runCorpus(permission: unknown, sandboxMode: string): Promise<CorpusRun> {
  const { box, outside } = setup()
  hits.clear()
  server.reset()
  writeConfig(box.project, {
    ...providerConfig(server, "openai-chat"),
    permission,
    experimental: { continue_loop_on_deny: true },
    ...(SANDBOX_SUPPORTED ? { sandbox: { mode: sandboxMode } } : {}),
  })
  const vars = (a: Attempt) => ({ id: a.id, url: sinkUrl, out: outside, outName: path.basename(outside) })
  for (const a of ATTEMPTS) {
    for (const call of a.calls) {
      const input: Record<string, unknown> =
        call.tool === "bash"
          ? { command: fill(call.command, vars(a)), description: a.id }
          : call.tool === "write"
            ? { filePath: fill(call.filePath, vars(a)), content: fill(call.content, vars(a)) }
            : { filePath: fill(call.filePath, vars(a)), oldString: call.oldString, newString: fill(call.newString, vars(a)) }
      server.script(toolCall(call.tool, input))
    }
  }
  server.script(text("corpus done"))
  const result = await wright(["run", "play the corpus"], { cwd: box.project, env: box.env, timeoutMs: 900_000 })
  return { box, outside, hits: new Set(hits), result, failures: [...server.failures] }
}

/** Whether the attempt's effect happened. */
function happened(run: CorpusRun, a: Attempt): boolean {
  const project = run.box.project
  const victim = path.join(project, "v", a.id)
  switch (a.effect) {
    case "deleted":
      return !existsSync(victim)
    case "emptied":
      return existsSync(victim) && statSync(victim).size === 0
    case "fetched":
      return run.hits.has(a.id)
    case "outside-write":
      return existsSync(path.join(run.outside, a.id))
    case "outside-read": {
      const copy = path.join(project, "r", a.id)
      return existsSync(copy) && readFileSync(copy, "utf8").includes("TOPSECRET")
    }
  }
}

const label = (a: Attempt) => `${a.id} ${a.kind}: ${a.calls.map((c) => (c.tool === "bash" ? c.command : `${c.tool} ${"filePath" in c ? c.filePath : ""}`)).join(" ⟶ ")}`
const CASES = ATTEMPTS.map((a) => [label(a), a] as const)
const KINDS: Kind[] = ["reserved-word", "arithmetic", "code-option", "vcs-config", "written-file", "outside", "deleter", "wrapper"]

describe("bypass corpus end to end", () => {
  it("bypass e2e - holds at least 80 attempts, in every class", () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(80)
    for (const kind of KINDS) expect(ATTEMPTS.filter((a) => a.kind === kind).length, kind).toBeGreaterThanOrEqual(3)
    expect(new Set(ATTEMPTS.map((a) => a.id)).size).toBe(ATTEMPTS.length)
  })

  describe("control: nothing denied, every attempt works", () => {
    let run: CorpusRun
    beforeAll(async () => {
      run = await runCorpus("allow", "off")
    }, 900_000)

    it("bypass e2e - control: the run played every call and finished", () => {
      expect(run.failures).toEqual([])
      expect(run.result.stderr).not.toContain("permission requested")
      expect(run.result.code).toBe(0)
    })

    it.each(CASES)("bypass e2e - control: %s has its effect", (_label, a) => {
      expect(happened(run, a)).toBe(true)
    })
  })

  describe.each([
    ["off", true],
    ["workspace-write", SANDBOX_SUPPORTED && !requires("bwrap")],
  ] as const)("denied, sandbox %s", (mode, enabled) => {
    let run: CorpusRun
    beforeAll(async () => {
      if (enabled) run = await runCorpus(DENY, mode)
    }, 900_000)

    it.skipIf(!enabled)(`bypass e2e - sandbox ${mode}: the run played every call and finished`, () => {
      expect(run.failures).toEqual([])
      expect(run.result.code === 0 || run.result.code === 1).toBe(true)
    })

    it.skipIf(!enabled).each(CASES)(`bypass e2e - sandbox ${mode}: %s is stopped`, (_label, a) => {
      expect(happened(run, a)).toBe(false)
    })
  })
})

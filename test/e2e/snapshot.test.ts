// Undo that restores files, end to end: the built `wright run --format json` makes changes
// (and reports them at the end), then the official OpenCode SDK against the built
// `wright serve` reverts and unreverts them, in a git repository whose .git stays untouched.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk"
import { afterAll, afterEach, beforeAll, expect, test as base } from "vitest"
import { providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"
import { startLLMServer, text, toolCall, toolCalls, type LLMServer } from "../lib/llm-server"
import { startServe, stopServe, type Served } from "./serve-helpers"
import { fingerprint } from "../lib/fingerprint"
import { requires } from "../lib/requires"

// Snapshots are git trees: without git these tests are skipped, saying so.
const test = base.skipIf(requires("git"))

let llm: LLMServer
let served: Served | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  if (served) await stopServe(served)
  served = undefined
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())


function data<T>(r: { data?: unknown; error?: unknown }): T {
  if (r.error) throw new Error(JSON.stringify(r.error))
  return r.data as T
}

for (const kind of ["git repository", "plain directory"] as const) {
  test(`snapshot e2e - ${kind}: run changes files and lists them; the official SDK's revert restores them, unrevert redoes`, { timeout: 180_000 }, async () => {
    const box = sandbox()
    const dir = box.project
    writeConfig(dir, providerConfig(llm, "openai-chat"))
    writeFileSync(path.join(dir, "app.py"), "print('v1')\n")
    writeFileSync(path.join(dir, "old.txt"), "old\n")
    writeFileSync(path.join(dir, ".gitignore"), "build/\n")
    const gitEnv = { PATH: process.env.PATH, HOME: box.home }
    if (kind === "git repository") {
      execFileSync("git", ["init", "-q"], { cwd: dir, env: gitEnv })
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i", "--allow-empty"], { cwd: dir, env: gitEnv })
      execFileSync("git", ["add", "-A"], { cwd: dir, env: gitEnv })
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "files"], { cwd: dir, env: gitEnv })
    }
    const dotGit = kind === "git repository" ? fingerprint(path.join(dir, ".git")) : undefined

    llm.script(
      toolCalls([
        { name: "edit", input: { filePath: "app.py", oldString: "v1", newString: "v2" } },
        { name: "write", input: { filePath: "pkg/sub/mod.py", content: "x = 1\n" } },
      ]),
      toolCall("bash", { command: "rm old.txt && mkdir -p build && echo out > build/a.o", description: "clean" }),
      text("done"),
    )
    const run = await wright(["run", "--format", "json", "make the change"], { cwd: dir, env: box.env, timeoutMs: 120_000 })
    expect(run.code, run.stderr).toBe(0)
    const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l))
    const changed = lines.find((l) => l.type === "files_changed")
    expect(changed.files).toEqual([
      { file: "app.py", status: "modified", additions: 1, deletions: 1 },
      { file: "old.txt", status: "deleted", additions: 0, deletions: 1 },
      { file: "pkg/sub/mod.py", status: "added", additions: 1, deletions: 0 },
    ])
    expect(lines.at(-1).type).toBe("files_changed")

    served = await startServe(box)
    const client = createOpencodeClient({ baseUrl: served.url, directory: dir })
    const [session] = data<{ id: string }[]>(await client.session.list())
    const messages = data<{ info: { id: string; role: string } }[]>(await client.session.messages({ path: { id: session!.id } }))
    const user = messages.find((m) => m.info.role === "user")!
    const diff = data<{ file: string; before: string; after: string }[]>(await client.session.diff({ path: { id: session!.id } }))
    expect(diff.find((d) => d.file === "app.py")).toMatchObject({ before: "print('v1')\n", after: "print('v2')\n" })

    const reverted = data<{ revert?: { messageID: string; snapshot?: string; diff?: string } }>(await client.session.revert({ path: { id: session!.id }, body: { messageID: user.info.id } }))
    expect(reverted.revert?.messageID).toBe(user.info.id)
    expect(reverted.revert?.snapshot).toMatch(/^[0-9a-f]{40}$/)
    expect(reverted.revert?.diff).toContain("-print('v2')")
    expect(readFileSync(path.join(dir, "app.py"), "utf8")).toBe("print('v1')\n")
    expect(readFileSync(path.join(dir, "old.txt"), "utf8")).toBe("old\n")
    expect(existsSync(path.join(dir, "pkg"))).toBe(false)
    // Ignored output the step made is not the snapshot's to remove.
    expect(readFileSync(path.join(dir, "build/a.o"), "utf8")).toBe("out\n")

    data(await client.session.unrevert({ path: { id: session!.id } }))
    expect(readFileSync(path.join(dir, "app.py"), "utf8")).toBe("print('v2')\n")
    expect(existsSync(path.join(dir, "old.txt"))).toBe(false)
    expect(readFileSync(path.join(dir, "pkg/sub/mod.py"), "utf8")).toBe("x = 1\n")
    if (dotGit) expect(fingerprint(path.join(dir, ".git"))).toEqual(dotGit)
  })
}

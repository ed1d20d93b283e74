// One view of the agents in the TUI, with the built binary in tmux against the scripted model:
// /children moves into a subagent's session and /parent back; the terminal is rung (raw
// output captured from the pane) when a session finishes or needs a permission, by the
// terminal's own means, and not at all with tui.notifications: false.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe as base, expect, test, vi } from "vitest"
import { BIN, providerConfig, sandbox, writeConfig } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"
import { requires } from "../lib/requires"
import { tuiHarness } from "../lib/tui-harness"

const describe = base.skipIf(requires("tmux"))
const h = tuiHarness({ strict: false })

function open(config: Record<string, unknown>, env: Record<string, string> = {}) {
  const box = sandbox()
  writeConfig(box.project, { ...providerConfig(h.server, "openai-chat"), ...config })
  const raw = path.join(box.home, "terminal.raw")
  const pane = h.pane()
  pane.start([process.execPath, BIN], { cwd: box.project, env: { ...box.env, ...env } })
  pane.record(raw)
  return { pane, raw: () => (existsSync(raw) ? readFileSync(raw, "latin1") : "") }
}

/** Bells that are not the end of an OSC string. */
const bells = (raw: string) => (raw.replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "").match(/\x07/g) ?? []).length

describe("tui agents - in a terminal", () => {
  test("tui agents - /children opens the subagent's session and /parent comes back; finishing rings OSC 9 in iTerm", async () => {
    h.server.script(
      toolCall("task", { description: "read the notes", prompt: "read them", subagent_type: "general" }),
      text("CHILD-ANSWER from the subagent"),
      text("PARENT-DONE after the subagent"),
    )
    const { pane, raw } = open({}, { TERM_PROGRAM: "iTerm.app" })
    await pane.waitFor("tab agents")
    pane.type("delegate it")
    pane.keys("Enter")
    await pane.waitFor("PARENT-DONE after the subagent")
    await vi.waitFor(() => expect(raw()).toMatch(/\x1b\]9;wright: [^\x07]*finished\x07/), { timeout: 10_000 })
    // The subagent finishing is not announced; the parent's finish once.
    expect(raw().match(/\x1b\]9;/g)).toHaveLength(1)

    pane.type("/children")
    pane.keys("Enter")
    await pane.waitFor("Subagent sessions")
    await pane.waitFor(/read the notes/)
    pane.keys("Enter")
    const child = await pane.waitFor("subagent session · /parent goes back")
    expect(child).toContain("CHILD-ANSWER from the subagent")

    pane.type("/parent")
    pane.keys("Enter")
    // The parent is printed again below the child's transcript.
    const back = await pane.waitFor((s) => s.lastIndexOf("PARENT-DONE after the subagent") > s.lastIndexOf("/parent goes back"))
    expect(back.slice(back.lastIndexOf("/parent goes back"))).toContain("❯ delegate it")
  })

  test("tui agents - a permission ask rings the bell outside a known terminal; tui.notifications: false keeps quiet", async () => {
    h.server.script(toolCall("bash", { command: "echo hi", description: "say hi" }))
    const { pane, raw } = open({ permission: { bash: "ask" } })
    await pane.waitFor("tab agents")
    pane.type("run it")
    pane.keys("Enter")
    await pane.waitFor(/echo hi/)
    await vi.waitFor(() => expect(bells(raw())).toBeGreaterThan(0), { timeout: 10_000 })
    expect(raw()).not.toMatch(/\x1b\](9|777);/)

    h.server.script(toolCall("bash", { command: "echo hi", description: "say hi" }))
    const quiet = open({ permission: { bash: "ask" }, tui: { notifications: false } }, { TERM_PROGRAM: "iTerm.app" })
    await quiet.pane.waitFor("tab agents")
    quiet.pane.type("run it")
    quiet.pane.keys("Enter")
    await quiet.pane.waitFor(/echo hi/)
    await new Promise((r) => setTimeout(r, 1000))
    expect(quiet.raw()).not.toMatch(/\x1b\](9|777);/)
    expect(bells(quiet.raw())).toBe(0)
  })

  test("tui agents - wright -w works in a new worktree, its session shows the branch; discarding its unmerged work asks first; one left unused goes on quit", async () => {
    const box = sandbox()
    const global = path.join(box.env.XDG_CONFIG_HOME!, "wright")
    mkdirSync(global, { recursive: true })
    writeConfig(global, providerConfig(h.server, "openai-chat"))
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: box.project, env: { PATH: process.env.PATH, HOME: box.home } }).toString()
    git("init", "-q", "-b", "main")
    writeFileSync(path.join(box.project, "app.py"), "print('v1')\n")
    git("add", "-A")
    git("commit", "-qm", "first")
    h.server.script(toolCall("edit", { filePath: "app.py", oldString: "v1", newString: "v2" }), text("WT-ANSWER edited"))
    const pane = h.pane()
    pane.start([process.execPath, BIN, "-w", "tuiwt"], { cwd: box.project, env: box.env })
    await pane.waitFor("tab agents")
    pane.type("edit it")
    pane.keys("Enter")
    await pane.waitFor("WT-ANSWER edited")
    pane.type("/sessions")
    pane.keys("Enter")
    await pane.waitFor(/\[wright\/tuiwt\]/)
    pane.keys("Escape")
    expect(readFileSync(path.join(box.project, "app.py"), "utf8")).toBe("print('v1')\n")
    pane.keys("C-d")
    await pane.waitFor("[exited 0]")

    const ask = h.pane()
    ask.start([process.execPath, BIN, "worktree", "discard", "tuiwt"], { cwd: box.project, env: box.env })
    await ask.waitFor("Worktree tuiwt has 1 uncommitted file(s). Discard them? [y/N]")
    ask.type("n")
    ask.keys("Enter")
    await ask.waitFor("Kept.")
    expect(git("branch", "--list", "wright/tuiwt")).toMatch(/wright\/tuiwt/)

    const yes = h.pane()
    yes.start([process.execPath, BIN, "worktree", "discard", "tuiwt"], { cwd: box.project, env: box.env })
    await yes.waitFor("Discard them? [y/N]")
    yes.type("y")
    yes.keys("Enter")
    await yes.waitFor("Discarded worktree tuiwt and branch wright/tuiwt.")
    expect(git("branch", "--list", "wright/*").trim()).toBe("")

    // Opened and left without a prompt: the worktree it made goes again.
    const idle = h.pane()
    idle.start([process.execPath, BIN, "-w", "idle"], { cwd: box.project, env: box.env })
    await idle.waitFor("tab agents")
    expect(git("branch", "--list", "wright/*")).toContain("wright/idle")
    idle.keys("C-d")
    await idle.waitFor("[exited 0]")
    expect(idle.all()).toContain("worktree idle removed: nothing was done in it")
    expect(git("branch", "--list", "wright/*").trim()).toBe("")
  })
})

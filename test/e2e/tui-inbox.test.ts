// The TUI while the agent works: Enter steers, ctrl+q queues; waiting prompts show above the
// prompt, and ↑ on the empty prompt takes the newest back (here dropped: withdrawn). The real
// `wright` binary in tmux, the scripted LLM behind it. Needs a build (`node scripts/build.mjs`).
import { describe as base, expect, test } from "vitest"
import { requires } from "../lib/requires"
import { text, toolCall, type RecordedRequest } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, wright, writeConfig } from "../lib/e2e"
import { tuiHarness } from "../lib/tui-harness"

const describe = base.skipIf(requires("tmux"))

const h = tuiHarness({ strict: false })

function userTexts(r: RecordedRequest): string[] {
  return (r.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((c) => c.text ?? "").join("")))
}

describe("tui inbox - in a terminal", () => {
  test("tui inbox - Enter steers and ctrl+q queues while the agent works; waiting prompts show, and one taken back is never sent", async () => {
    const box = sandbox()
    writeConfig(box.project, providerConfig(h.server, "openai-chat"))
    const slow = Array.from({ length: 40 }, (_, i) => `w${i} `)
    // The first step streams a little, then holds until the prompts below are steered and queued
    // (a fixed-length stream could end first on a loaded machine).
    let release!: () => void
    const gate = { after: 3, open: new Promise<void>((r) => (release = r)) }
    h.server.script(toolCall("read", { filePath: `${box.project}/opencode.json` }, { text: slow, delayMs: 20, gate }), text("Steered answer."), text("Queued answer."))
    const pane = h.pane()
    pane.start([process.execPath, BIN], { cwd: box.project, env: box.env })
    await pane.waitFor("tab agents")
    pane.type("start the work")
    pane.keys("Enter")
    await pane.waitFor("ctrl+q queues")

    pane.type("use the other file")
    pane.keys("Enter")
    await pane.waitFor("steering use the other file")
    pane.type("then add a title")
    pane.keys("C-q")
    await pane.waitFor("queued then add a title")
    pane.type("drop this one")
    pane.keys("C-q")
    await pane.waitFor("queued drop this one")
    // ↑ on the empty prompt: the newest waiting prompt leaves the inbox and is back in the prompt.
    pane.keys("Up")
    await pane.waitFor((s) => !s.includes("queued drop this one") && s.includes("drop this one") && s.includes("queued then add a title"))
    pane.keys("C-c")
    await pane.waitFor((s) => !s.includes("drop this one"))
    // Nothing was delivered while the first step streamed.
    expect(h.server.requests).toHaveLength(1)
    release()

    await pane.waitFor("Queued answer.", { timeoutMs: 60_000 })
    await pane.waitFor((s) => s.includes("tab agents") && !s.includes("steering ") && !s.includes("queued then"))
    const sent = h.server.requests.map(userTexts)
    expect(sent).toEqual([
      ["start the work"],
      // The steer in the same turn, right after the tool result; the queued prompt a new turn after the answer.
      ["start the work", "use the other file"],
      ["start the work", "use the other file", "then add a title"],
    ])
  })

  test("tui inbox - on a session another process runs, ctrl+q queues for that process, which answers it as a new turn", async () => {
    const box = sandbox()
    writeConfig(box.project, providerConfig(h.server, "openai-chat"))
    const story = Array.from({ length: 40 }, (_, i) => `s${i} `)
    // run's answer holds after a few words until the TUI (a cold start) has queued its prompt.
    let release!: () => void
    h.server.script({ text: story, delayMs: 20, gate: { after: 3, open: new Promise<void>((r) => (release = r)) } }, text("Queued from the TUI."))
    const running = wright(["run", "tell a story"], { cwd: box.project, env: box.env })
    await waitUntil(() => h.server.inFlight() === 1, "run's request at the model")
    const pane = h.pane()
    pane.start([process.execPath, BIN, "-c"], { cwd: box.project, env: box.env })
    await pane.waitFor("read-only")
    pane.type("and a title please")
    pane.keys("C-q")
    await pane.waitFor("queued and a title please")
    release()
    const ran = await running
    expect(ran.code).toBe(0)
    // run's process delivered it after its own answer, as a new turn.
    expect(h.server.requests.map(userTexts)).toEqual([["tell a story"], ["tell a story", "and a title please"]])
    await pane.waitFor((s) => s.includes("Queued from the TUI.") && !s.includes("queued and a title"), { timeoutMs: 30_000 })
  })
})

async function waitUntil(pred: () => boolean, what: string, ms = 30_000) {
  const start = Date.now()
  while (!pred()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

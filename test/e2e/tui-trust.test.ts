// The TUI's trust question against the built binary in a real terminal (tmux): a cloned
// repository whose config would start an MCP server. The user's provider lives in their global
// config; the repository's wright.json is the only thing trust decides. Needs a build.
import { existsSync, mkdirSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeAll, describe as base, expect, test, vi } from "vitest"
import { requires } from "../lib/requires"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { BIN, providerConfig, sandbox, writeConfig, type Sandbox } from "../lib/e2e"
import { Tmux } from "../tui/tmux"

// A terminal UI test drives wright in tmux; without tmux it is skipped, saying so.
const describe = base.skipIf(requires("tmux"))

vi.setConfig({ testTimeout: 120_000 })

let server: LLMServer
const panes: Tmux[] = []
beforeAll(async () => {
  server = await startLLMServer()
})
afterEach(() => {
  for (const p of panes.splice(0)) p.kill()
  expect(server.failures).toEqual([])
  server.reset()
})
afterAll(() => server.close())

const PROMPT_READY = "tab agents"
const ASKED = "This folder's config is not trusted"

/** The user's own setup in the global config; the project's config starts a harmless "MCP server" that leaves a marker. */
function clonedRepo(project: Record<string, unknown> | "hostile" = "hostile"): Sandbox & { marker: string } {
  const box = sandbox()
  // Other tests trust their folders through the environment; this one plays a cloned repository.
  delete box.env.WRIGHT_TRUST
  const globalDir = path.join(box.env.XDG_CONFIG_HOME!, "wright")
  mkdirSync(globalDir, { recursive: true })
  writeConfig(globalDir, providerConfig(server, "openai-chat"))
  // In the project: a project's MCP server runs inside the sandbox even once trusted, where only the project is writable.
  const marker = path.join(box.project, "mcp-ran")
  writeConfig(box.project, project === "hostile" ? { mcp: { probe: { type: "local", command: ["sh", "-c", `echo ran > ${marker}`] } } } : project)
  return { ...box, marker }
}

function open(box: Sandbox, args: string[] = []) {
  const pane = new Tmux()
  panes.push(pane)
  pane.start([process.execPath, BIN, ...args], { cwd: box.project, env: box.env })
  return pane
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until(what: () => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs
  while (!what()) {
    if (Date.now() > deadline) throw new Error("timed out")
    await sleep(50)
  }
}

/** Sends a prompt and waits for the scripted answer to stream in. */
async function ask(pane: Tmux, prompt: string, answer: string) {
  server.script({ text: answer.split(/(?<= )/), delayMs: 20 })
  pane.type(prompt)
  pane.keys("Enter")
  await pane.waitFor(answer)
}

describe("tui - trusted folders in a terminal", () => {
  test("tui trust - the dialog names the MCP server and holds back --prompt; trusting starts it, prompts still stream, and the next launch does not ask", async () => {
    const box = clonedRepo()
    server.script({ text: ["Answered ", "after ", "the reload."], delayMs: 20 })
    const pane = open(box, ["--prompt", "the first question"])
    const dialog = await pane.waitFor(ASKED)
    expect(dialog).toContain('mcp.probe: starts "sh -c echo ran >')
    expect(dialog).toContain("Trust this folder")
    expect(dialog).toContain("Keep it held back")
    // Held back: the core has booted without the project's MCP server, and the first prompt waits for the answer.
    await sleep(1000)
    expect(existsSync(box.marker)).toBe(false)
    expect(server.requests).toHaveLength(0)

    pane.keys("Left")
    pane.keys("Enter")
    await pane.waitFor("Trusted ")
    // The reloaded App started the project's MCP server, then ran the waiting prompt.
    await until(() => existsSync(box.marker))
    const answered = await pane.waitFor("Answered after the reload.")
    expect(answered).toContain("❯ the first question")
    expect(answered).not.toContain(ASKED)
    // Events keep coming from the new App: a typed prompt streams as usual.
    await ask(pane, "and another", "The second answer streams too.")
    await pane.waitFor("▣ build · chat-model")
    pane.keys("C-d")
    await pane.waitFor("[exited 0]")

    const again = open(box)
    await again.waitFor(PROMPT_READY)
    await ask(again, "still there?", "Yes, and trusted.")
    expect(again.all()).not.toContain(ASKED)
  })

  test("tui trust - keeping it held back leaves the MCP server unstarted and says /trust trusts it later", async () => {
    const box = clonedRepo()
    const pane = open(box)
    await pane.waitFor(ASKED)
    pane.keys("Escape")
    // The dialog closes and leaves one line behind.
    await pane.waitFor((s) => s.includes("This folder's config stays held back; /trust trusts it later.") && !s.includes("Keep it held back"))
    await ask(pane, "hello", "Hello from the held-back folder.")
    expect(existsSync(box.marker)).toBe(false)
  })

  test("tui trust - a folder whose config needs no trust is never asked about", async () => {
    // Tightening a rule and naming a model need no trust.
    const box = clonedRepo({ permission: { bash: "ask" }, model: "fake/chat-model" })
    const pane = open(box)
    await pane.waitFor(PROMPT_READY)
    await ask(pane, "hi", "No questions asked.")
    expect(pane.all()).not.toContain("not trusted")
    expect(pane.all()).not.toContain("held back")
  })
})

// What every end-to-end file of the TUI sets up: one scripted model server for the file (reset
// after each test, closed at the end), the panes a test opened killed after it, and the longer
// timeout a pane under a loaded machine needs. Call it once at the top of the file.
import { afterAll, afterEach, beforeAll, vi } from "vitest"
import { Tmux } from "../tui/tmux"
import { startLLMServer, type LLMServer } from "./llm-server"

export function tuiHarness(opts: { strict?: boolean } = {}) {
  vi.setConfig({ testTimeout: 120_000 })
  let server: LLMServer | undefined
  const panes: Tmux[] = []
  beforeAll(async () => {
    server = await startLLMServer(opts.strict === false ? { strict: false } : undefined)
  })
  afterEach(() => {
    for (const p of panes.splice(0)) p.kill()
    server?.reset()
  })
  afterAll(() => server?.close())
  return {
    /** The file's scripted model server (there once the file's beforeAll ran). */
    get server(): LLMServer {
      return server!
    },
    /** A new tmux pane, killed after the test. */
    pane(): Tmux {
      const p = new Tmux()
      panes.push(p)
      return p
    },
  }
}

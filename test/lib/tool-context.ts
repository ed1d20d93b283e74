// A real ToolContext for tool tests: a temp project directory, asks recorded (and answered
// by `decide`, allow by default), in-memory services. No mocks of wright's modules.
import { mkdtempSync, realpathSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { createExec, type Exec, type Sandbox } from "../../src/process"
import { createFileService, type AskRequest, type FileService, type ToolContext } from "../../src/tool"
import type { Todo } from "../../src/protocol"

export interface TestContext extends ToolContext {
  asks: AskRequest[]
  updates: { title?: string; metadata?: Record<string, unknown> }[]
  controller: AbortController
}

export function tempDir(prefix = "wright-test-"): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)))
}

export function toolContext(opts: {
  directory?: string
  worktree?: string
  decide?: (req: AskRequest) => void | Promise<void>
  answers?: string[][]
  maxLines?: number
  maxBytes?: number
  /** The spawner the tools get (default: a real one over process.env). */
  exec?: Exec
  /** The file writer the tools get (default: a real one that publishes nowhere). */
  files?: FileService
  /** The OS sandbox the bash tool runs in (default: none). */
  sandbox?: Sandbox
} = {}): TestContext {
  const directory = opts.directory ?? tempDir()
  const controller = new AbortController()
  const asks: AskRequest[] = []
  const updates: TestContext["updates"] = []
  const todos = new Map<string, Todo[]>()
  const seen = new Set<string>()
  return {
    sessionID: "ses_test",
    messageID: "msg_test",
    callID: "call_test",
    agent: "build",
    directory,
    worktree: opts.worktree ?? directory,
    abort: controller.signal,
    controller,
    asks,
    updates,
    async ask(req) {
      asks.push(req)
      await opts.decide?.(req)
    },
    metadata(input) {
      updates.push(input)
    },
    services: {
      todos: { get: (id) => todos.get(id) ?? [], set: (id, list) => void todos.set(id, list) },
      question: {
        async ask() {
          if (!opts.answers) throw new Error("no answers scripted for the question tool")
          return opts.answers
        },
      },
      claimInstructions(messageID, paths) {
        const fresh = paths.filter((p) => !seen.has(`${messageID}:${p}`))
        for (const p of fresh) seen.add(`${messageID}:${p}`)
        return fresh
      },
      exec: opts.exec ?? createExec({ env: process.env }),
      files: opts.files ?? createFileService({ edited: () => {}, afterWrite: [] }),
      sandbox: opts.sandbox,
    },
    outputDir: tempDir("wright-tool-output-"),
    limits: { maxLines: opts.maxLines ?? 2000, maxBytes: opts.maxBytes ?? 51200 },
    canDelegate: false,
  }
}

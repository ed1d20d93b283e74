// An editor for tests: spawns the BUILT `wright acp` and talks to it over its stdio with the
// ACP SDK's client, recording every session/update and permission request it receives.
import { spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk/unstable"
import { afterAll, afterEach, beforeAll, expect } from "vitest"
import { BIN, type Sandbox } from "../lib/e2e"
import { startLLMServer, type LLMServer } from "../lib/llm-server"

/** "hold": no answer until the agent withdraws the request ($/cancel_request), then "cancelled". */
export type PermissionAnswer = "once" | "always" | "reject" | "cancelled" | "hold"

export interface Editor {
  agent: acp.ClientContext
  /** Every update received, in order, with its session. */
  updates: acp.SessionNotification[]
  permissions: acp.RequestPermissionRequest[]
  /** Position in `updates` when each permission request arrived. */
  permissionAt: number[]
  /** Permission requests the agent withdrew before they were answered. */
  withdrawn: number
  /** How the next permission requests are answered (default: allow once). */
  answer: PermissionAnswer
  /** The editor's open buffers by absolute path: fs/read_text_file answers from them, else from disk. */
  buffers: Map<string, string>
  /** Every fs/read_text_file and fs/write_text_file the agent sent, in order. */
  fsCalls: Array<{ method: "read" | "write"; path: string; content?: string }>
  stdout: () => string
  stderr: () => string
  /** Resolves once `pred` holds (checked on every update and permission request). */
  waitFor(pred: (updates: acp.SessionNotification[]) => boolean, timeoutMs?: number): Promise<void>
  /** Closes stdin and waits for the process to exit. */
  close(): Promise<number | null>
}

export async function startEditor(box: Sandbox, args: string[] = []): Promise<Editor> {
  const child = spawn(process.execPath, [BIN, "acp", ...args], { cwd: box.project, env: box.env, stdio: ["pipe", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d) => (stdout += d))
  child.stderr.on("data", (d) => (stderr += d))
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)))

  const updates: acp.SessionNotification[] = []
  const waiters = new Set<() => void>()
  const editor: Editor = {
    agent: undefined as never,
    updates,
    permissions: [],
    permissionAt: [],
    withdrawn: 0,
    answer: "once",
    buffers: new Map(),
    fsCalls: [],
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor(pred, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pred(updates)) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`timed out waiting for updates; got ${JSON.stringify(updates.map((u) => u.update.sessionUpdate))}\nstderr: ${stderr}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    async close() {
      child.stdin.end()
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
      const code = await exited
      clearTimeout(timer)
      return code
    },
  }

  const app = acp
    .client({ name: "test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params)
      for (const w of [...waiters]) w()
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      editor.permissions.push(params)
      editor.permissionAt.push(updates.length)
      for (const w of [...waiters]) w()
      if (editor.answer === "hold")
        return new Promise<acp.RequestPermissionResponse>((resolve) =>
          signal.addEventListener("abort", () => {
            editor.withdrawn++
            resolve({ outcome: { outcome: "cancelled" } })
          }),
        )
      if (editor.answer === "cancelled") return { outcome: { outcome: "cancelled" } }
      return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.optionId === editor.answer)!.optionId } }
    })
    // An editor saves what it is told to write: the buffer and the file on disk.
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      editor.fsCalls.push({ method: "read", path: params.path })
      const content = editor.buffers.get(params.path) ?? readFileSync(params.path, "utf8")
      return { content }
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      editor.fsCalls.push({ method: "write", path: params.path, content: params.content })
      editor.buffers.set(params.path, params.content)
      writeFileSync(params.path, params.content)
      return {}
    })
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>)
  editor.agent = app.connect(stream).agent
  return editor
}

export async function initialize(editor: Editor, clientCapabilities: acp.ClientCapabilities = {}) {
  return editor.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities, clientInfo: { name: "test-editor", version: "1" } })
}

/** The updates of one kind, in order. */
export function ofKind<K extends acp.SessionUpdate["sessionUpdate"]>(updates: acp.SessionNotification[], kind: K): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
  return updates.map((u) => u.update).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind)
}

/**
 * A tool call as the editor shows it after all its updates: the last title, kind and locations
 * sent for it (a call announced while its arguments stream is generic until its summary arrives).
 */
export function toolCallShown(updates: acp.SessionNotification[], toolCallId: string): { title?: string; kind?: acp.ToolKind; locations?: acp.ToolCallLocation[] } {
  const shown: { title?: string; kind?: acp.ToolKind; locations?: acp.ToolCallLocation[] } = {}
  for (const { update: u } of updates) {
    if ((u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") || u.toolCallId !== toolCallId) continue
    if (u.title) shown.title = u.title
    if (u.kind) shown.kind = u.kind
    if (u.locations) shown.locations = u.locations
  }
  return shown
}

/** The text of all chunks of one kind, joined. */
export function chunks(updates: acp.SessionNotification[], kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk"): string {
  return ofKind(updates, kind)
    .map((u) => (u.content.type === "text" ? u.content.text : ""))
    .join("")
}

/** Every line the agent wrote to stdout is a JSON-RPC message. */
export function protocolOnly(stdout: string): boolean {
  return stdout
    .split("\n")
    .filter((l) => l.trim())
    .every((l) => {
      try {
        return JSON.parse(l).jsonrpc === "2.0"
      } catch {
        return false
      }
    })
}

/**
 * A test file's scripted model, started once and reset after each test (which must leave it no
 * failures), and the editors a test started, closed after it unless the test closed one itself
 * (`untrack`).
 */
export function acpSuite(): { readonly llm: LLMServer; track(editor: Editor): Editor; untrack(editor: Editor): void } {
  let llm: LLMServer | undefined
  const open: Editor[] = []
  beforeAll(async () => {
    llm = await startLLMServer()
  })
  afterEach(async () => {
    for (const e of open.splice(0)) await e.close()
    expect(llm?.failures).toEqual([])
    llm?.reset()
  })
  afterAll(() => llm?.close())
  return {
    get llm() {
      if (!llm) throw new Error("acpSuite: the model server starts in beforeAll")
      return llm
    },
    track: (editor) => (open.push(editor), editor),
    untrack: (editor) => void open.splice(open.indexOf(editor), 1),
  }
}

// One editor session bound to one wright session: it streams that session's events to the
// editor in order, runs prompt turns through the API and answers with a stop reason,
// forwards permission asks and the file tools' reads and writes of the editor's buffers, and
// cancels. It reaches the core only through the API client.
import path from "node:path"
import {
  RequestError,
  type ContentBlock,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
  type StopReason,
  type Usage,
  type WriteTextFileRequest,
} from "@agentclientprotocol/sdk/unstable"
import type { BusEvent, Message, PartInput, PermissionRequest, Tokens } from "../protocol"
import { ApiError, type Client } from "../sdk"
import { promptParts } from "./content"
import { PERMISSION_OPTIONS, permissionToolCall, replyOf } from "./permission"
import { UpdateMapper } from "./updates"

export interface SessionIo {
  notify(update: SessionUpdate): Promise<void>
  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>
  /** fs/read_text_file and fs/write_text_file of the editor; reject with its error. */
  readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse>
  writeTextFile(params: WriteTextFileRequest): Promise<unknown>
  log(message: string): void
}

interface Turn {
  /** The tokens of the turn's finished steps, summed: the prompt response's `usage`. */
  tokens: Tokens[]
  cancelled: boolean
  busy: boolean
  idle: Promise<void>
  settle: () => void
}

/** How long a finished turn waits for its last events before answering anyway. */
const TRAILING_EVENTS_MS = 5000

export class AcpSession {
  mode: string
  /** "provider/model" the editor chose (session/set_config_option); undefined: the session's own. */
  model?: string
  /** Context window per "provider/model", for usage updates. */
  context = new Map<string, number>()
  /** Cost of each assistant message so far: their sum is the session's cost. */
  private readonly costs = new Map<string, number>()
  /** The latest info of each assistant message: the model a finished step ran on. */
  private readonly assistants = new Map<string, Extract<Message, { role: "assistant" }>>()
  private lastUsage = ""
  /** The project's slash commands, once listed (see `commandsListed`). */
  commands: string[] = []
  commandsListed: Promise<void> = Promise.resolve()
  private readonly mapper: UpdateMapper
  private tail: Promise<void> = Promise.resolve()
  private asking: Promise<void> = Promise.resolve()
  private readonly asks = new Map<string, AbortController>()
  private turn?: Turn

  constructor(
    readonly id: string,
    readonly directory: string,
    readonly api: Client,
    private readonly io: SessionIo,
    mode: string,
  ) {
    this.mode = mode
    this.mapper = new UpdateMapper(directory)
  }

  /** Queues an update; updates reach the editor in the order they were queued. */
  send(update: SessionUpdate): void {
    this.tail = this.tail.then(() => this.io.notify(update)).catch((e) => this.io.log(`session/update failed: ${(e as Error).message}`))
  }

  /** Resolves once everything queued so far was written. */
  flushed(): Promise<void> {
    return this.tail
  }

  /** An event of this session (`child`: of a subtask it started, whose asks we forward too). */
  handle(e: BusEvent, child = false): void {
    if (e.type === "permission.asked") return this.ask(e.properties)
    if (e.type === "permission.replied") return void this.asks.get(e.properties.requestID)?.abort()
    if (e.type === "editor.file.requested") return void this.editorFile(e.properties)
    // A subtask's tool calls show as calls of this session, so the editor sees the work it does.
    if (child) {
      for (const update of this.mapper.mapChild(e)) this.send(update)
      return
    }
    if (e.type === "message.updated" && e.properties.info.role === "assistant") {
      this.costs.set(e.properties.info.id, e.properties.info.cost)
      this.assistants.set(e.properties.info.id, e.properties.info)
    }
    const turn = this.turn
    // The core puts a step's finish once its tool calls settled: the update follows their results.
    const part = e.type === "message.part.updated" ? e.properties.part : undefined
    if (part?.type === "step-finish" && part.sessionID === this.id) {
      turn?.tokens.push(part.tokens)
      const info = this.assistants.get(part.messageID)
      if (info) this.usage(info, part.tokens)
    }
    if (turn && e.type === "session.status" && e.properties.status.type !== "idle") turn.busy = true
    if (turn && e.type === "session.idle" && turn.busy) turn.settle()
    for (const update of this.mapper.map(e)) this.send(update)
  }

  /** One prompt turn: why it stopped, and the tokens its steps used (ACP's `usage`). */
  async prompt(blocks: ContentBlock[]): Promise<{ stopReason: StopReason; usage?: Usage }> {
    if (this.turn) throw RequestError.invalidRequest({ sessionId: this.id }, "a prompt is already running in this session; send session/cancel first")
    const parts = promptParts(blocks)
    let settle!: () => void
    const idle = new Promise<void>((r) => (settle = r))
    const turn: Turn = (this.turn = { tokens: [], cancelled: false, busy: false, idle, settle })
    try {
      const undo = await this.undoCommand(parts)
      if (undo) {
        await (undo === "undo" ? this.undo() : this.redo())
        await this.tail
        return { stopReason: "end_turn" }
      }
      const command = await this.slashCommand(parts)
      const result = command
        ? await this.api.session.command(this.id, { command: command.name, arguments: command.args, agent: this.mode, ...(this.model ? { model: this.model } : {}), ...(command.files.length ? { parts: command.files } : {}) })
        : await this.api.session.prompt(this.id, { agent: this.mode, parts, ...(this.model ? { model: modelRef(this.model) } : {}) })
      // The answer can overtake its last streamed events: let them through first.
      await within(turn.idle, TRAILING_EVENTS_MS)
      await this.tail
      return { stopReason: stopReason(result.info, turn.cancelled), ...turnUsage(turn.tokens) }
    } catch (e) {
      await this.tail
      if (turn.cancelled) return { stopReason: "cancelled", ...turnUsage(turn.tokens) }
      throw toRequestError(e)
    } finally {
      this.turn = undefined
    }
  }

  /** ACP's usage_update after a step: the context in use against the model's window, and the session's cost. */
  private usage(info: Extract<Message, { role: "assistant" }>, t: Tokens) {
    const used = t.input + t.output + t.cache.read + t.cache.write
    const size = this.context.get(`${info.providerID}/${info.modelID}`)
    if (!used || !size) return
    let amount = 0
    for (const c of this.costs.values()) amount += c
    const key = `${used}/${size}/${amount}`
    if (key === this.lastUsage) return
    this.lastUsage = key
    this.send({ sessionUpdate: "usage_update", used, size, cost: { amount, currency: "USD" } })
  }

  /** Stops the running turn: pending asks are withdrawn and the loop aborted. */
  async cancel(): Promise<void> {
    if (!this.turn) return
    this.turn.cancelled = true
    for (const controller of this.asks.values()) controller.abort()
    await this.api.session.abort(this.id).catch((e) => this.io.log(`abort failed: ${(e as Error).message}`))
  }

  get running(): boolean {
    return this.turn !== undefined
  }

  private ask(req: PermissionRequest) {
    const controller = new AbortController()
    this.asks.set(req.id, controller)
    // The editor sees the tool call before it is asked about it; one dialog at a time.
    const shown = this.tail
    this.asking = this.asking.then(async () => {
      await shown
      if (controller.signal.aborted) return
      let res: RequestPermissionResponse | undefined
      try {
        res = await this.io.requestPermission({ sessionId: this.id, toolCall: permissionToolCall(req, this.directory), options: PERMISSION_OPTIONS }, controller.signal)
      } catch (e) {
        if (!controller.signal.aborted) this.io.log(`session/request_permission failed: ${(e as Error).message}`)
      } finally {
        this.asks.delete(req.id)
      }
      // Answered elsewhere (the turn was cancelled): the core no longer waits for us.
      if (controller.signal.aborted) return
      await this.api.permission.reply(req.id, replyOf(res)).catch((e) => this.io.log(`permission reply failed: ${(e as Error).message}`))
    })
  }

  /** A tool of this session or of a subtask it started reads or writes a file through the editor's buffer: ask the editor, answer the core. */
  private async editorFile(req: Extract<BusEvent, { type: "editor.file.requested" }>["properties"]) {
    let reply: { content?: string; error?: string }
    try {
      if (req.operation === "read") reply = { content: (await this.io.readTextFile({ sessionId: this.id, path: req.path })).content }
      else {
        await this.io.writeTextFile({ sessionId: this.id, path: req.path, content: req.content ?? "" })
        reply = {}
      }
    } catch (e) {
      reply = { error: (e as Error).message || String(e) }
    }
    // A subtask's request is answered under its own session id.
    await this.api.session.editorReply(req.sessionID, req.requestID, reply).catch((e) => this.io.log(`answering the ${req.operation} of ${req.path} failed: ${(e as Error).message}`))
  }

  /** `/undo` or `/redo` alone, unless the project defines a command of that name. */
  private async undoCommand(parts: PartInput[]): Promise<"undo" | "redo" | undefined> {
    const first = parts[0]
    if (parts.length !== 1 || first?.type !== "text") return undefined
    const name = /^\/(undo|redo)\s*$/.exec(first.text)?.[1] as "undo" | "redo" | undefined
    if (!name) return undefined
    await this.commandsListed
    return this.commands.includes(name) ? undefined : name
  }

  /** Reverts the last shown prompt; the files it put back reach the editor as an edit's diffs. */
  private async undo() {
    const session = await this.api.session.get(this.id)
    const messages = await this.api.session.messages(this.id)
    const at = session.revert?.messageID
    const last = messages.filter((m) => m.info.role === "user" && (!at || m.info.id < at)).at(-1)
    if (!last) return this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Nothing to undo." } })
    const diffs = await this.api.session.diff(this.id, { messageID: last.info.id })
    const reverted = await this.api.session.revert(this.id, { messageID: last.info.id })
    const restored = new Set(reverted.revert?.restored ?? [])
    const root = worktreeOf(messages) ?? this.directory
    const changes = diffs.filter((d) => restored.has(path.join(root, d.file)))
    this.reportFiles("Undo", changes.map((d) => ({ file: path.join(root, d.file), oldText: d.after, newText: d.before })), reverted.revert?.kept ?? [], reverted.revert?.notice)
  }

  /** Brings back what the last undo reverted, shown to the editor the same way. */
  private async redo() {
    const session = await this.api.session.get(this.id)
    const point = session.revert
    if (!point) return this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Nothing to redo." } })
    await this.api.session.unrevert(this.id)
    const messages = await this.api.session.messages(this.id)
    const turns = messages.filter((m) => m.info.role === "user" && m.info.id >= point.messageID)
    const diffs = (await Promise.all(turns.map((t) => this.api.session.diff(this.id, { messageID: t.info.id })))).flat()
    const root = worktreeOf(messages) ?? this.directory
    this.reportFiles("Redo", diffs.map((d) => ({ file: path.join(root, d.file), oldText: d.before, newText: d.after })), [], undefined)
  }

  private reportFiles(what: string, files: { file: string; oldText: string; newText: string }[], kept: { file: string; reason: string }[], notice: string | undefined) {
    if (files.length)
      this.send({
        sessionUpdate: "tool_call",
        toolCallId: `${what.toLowerCase()}-${Date.now()}`,
        title: `${what}: ${files.length} file${files.length === 1 ? "" : "s"} restored`,
        kind: "edit",
        status: "completed",
        locations: files.map((f) => ({ path: f.file })),
        content: files.map((f) => ({ type: "diff" as const, path: f.file, oldText: f.oldText, newText: f.newText })),
      })
    const lines = [`${what} done.`, ...(notice ? [notice] : []), ...kept.map((k) => `Kept ${path.relative(this.directory, k.file)}: ${k.reason}`)]
    this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: lines.join("\n") } })
  }

  /** `/name args` where name is one of the project's commands. */
  private async slashCommand(parts: PartInput[]) {
    const first = parts[0]
    if (first?.type !== "text") return undefined
    const m = /^\/(\S+)\s*([\s\S]*)$/.exec(first.text)
    if (!m) return undefined
    await this.commandsListed
    if (!this.commands.includes(m[1]!)) return undefined
    const files = parts.filter((p) => p.type === "file")
    return { name: m[1]!, args: m[2]!.trim(), files }
  }
}

/** ACP's `usage` of a prompt turn: its steps' tokens summed; none when no step finished. */
export function turnUsage(steps: Tokens[]): { usage?: Usage } {
  if (!steps.length) return {}
  const sum = (f: (t: Tokens) => number) => steps.reduce((n, t) => n + f(t), 0)
  const inputTokens = sum((t) => t.input)
  const outputTokens = sum((t) => t.output)
  const thoughtTokens = sum((t) => t.reasoning)
  const cachedReadTokens = sum((t) => t.cache.read)
  const cachedWriteTokens = sum((t) => t.cache.write)
  return { usage: { totalTokens: inputTokens + outputTokens + thoughtTokens + cachedReadTokens + cachedWriteTokens, inputTokens, outputTokens, thoughtTokens, cachedReadTokens, cachedWriteTokens } }
}

export function stopReason(info: Message, cancelled: boolean): StopReason {
  if (cancelled) return "cancelled"
  if (info.role !== "assistant") return "end_turn"
  if (info.error?.name === "MessageAbortedError") return "cancelled"
  if (info.error?.name === "MessageOutputLengthError") return "max_tokens"
  if (info.error?.name === "ContentFilterError") return "refusal"
  if (info.error) {
    const message = typeof info.error.data?.message === "string" ? info.error.data.message : info.error.name
    throw new RequestError(-32603, `${info.error.name}: ${message}`, { name: info.error.name, data: info.error.data })
  }
  if (info.finish === "length") return "max_tokens"
  if (info.finish === "content-filter") return "refusal"
  return "end_turn"
}

/** API errors keep their name and message; 404 is ACP's resource-not-found. */
export function toRequestError(e: unknown): RequestError {
  if (e instanceof RequestError) return e
  if (e instanceof ApiError) {
    const code = e.status === 404 ? -32002 : e.status === 400 ? -32602 : -32603
    return new RequestError(code, `${e.name}: ${e.message}`, { name: e.name, status: e.status })
  }
  const err = e instanceof Error ? e : new Error(String(e))
  return new RequestError(-32603, err.message, { name: err.name })
}

function modelRef(model: string): { providerID: string; modelID: string } {
  const slash = model.indexOf("/")
  return { providerID: model.slice(0, slash), modelID: model.slice(slash + 1) }
}

function within(p: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))]).finally(() => clearTimeout(timer))
}

/** The worktree the session's steps ran in (an assistant message's path.root). */
function worktreeOf(messages: { info: Message }[]): string | undefined {
  for (const m of messages) if (m.info.role === "assistant") return m.info.path.root
  return undefined
}

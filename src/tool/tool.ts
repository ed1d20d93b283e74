import { z } from "zod"
import type { Exec, Sandbox } from "../process"
import { declareError, type FilePart, type QuestionInfo, type Todo, type ToolState, type ToolSummary } from "../protocol"
import type { WrittenFiles } from "./written-files"
import type { FileService } from "./file-service"

/** A file produced by a tool (an image read, a fetched PDF), sent back to the model. */
export type ToolAttachment = Pick<FilePart, "mime" | "url" | "filename">

export interface ToolResult {
  title: string
  output: string
  metadata: Record<string, unknown>
  attachments?: ToolAttachment[]
}

export interface AskRequest {
  permission: string
  patterns: string[]
  always: string[]
  metadata?: Record<string, unknown>
  /** Allow rules cannot auto-approve this request (the command could not be understood). */
  forceAsk?: boolean
  /**
   * Only a rule that names the URL's host can let this through (webfetch to a private
   * address); a catch-all such as `*` does not. With no such rule the ask throws a
   * PermissionDeniedError whose `rules` is empty.
   */
  named?: boolean
}

/** Session-level services a few tools need; provided by the session layer. */
export interface ToolServices {
  /**
   * The session's todo list (todoread/todowrite). Contract: `get` returns [] for a session with
   * none; `set` replaces the list and publishes `todo.updated`; neither throws.
   */
  todos: { get(sessionID: string): Todo[]; set(sessionID: string, todos: Todo[]): void }
  /**
   * Asks the user (the question tool). Contract: resolves with one list of chosen labels per
   * question; rejects with QuestionRejectedError when the user dismisses it (or the session is
   * cancelled), and with the abort reason when the signal aborts.
   */
  question: { ask(input: { sessionID: string; questions: QuestionInfo[]; tool?: { messageID: string; callID: string } }, signal: AbortSignal): Promise<string[][]> }
  /**
   * Of the given instruction files (AGENTS.md/CLAUDE.md found by the read tool between the
   * project root and a file), returns those not yet sent to the model in this message or in
   * the system prompt, and marks them sent. Contract: called by the read tool after a read;
   * returns [] when all were sent; never throws.
   */
  claimInstructions(messageID: string, paths: string[]): string[]
  /**
   * The one spawner (process/): starts a command from the App's environment in its own
   * process group. Rejects when it cannot start; a timeout or abort kills the whole group.
   */
  exec: Exec
  /**
   * The App's OS sandbox, resolved once from the `sandbox` config: the bash tool hands it to
   * `exec` and asks it whether a failure was its doing. Undefined: commands run unconfined.
   */
  sandbox?: Sandbox
  /**
   * The one file writer: per-file lock, containment checked again at write time, atomic
   * write, then `file.edited` and afterWrite. edit, write and apply_patch write only here.
   */
  files: FileService
  /**
   * Files this wright wrote (the file writer's, and those bash commands wrote as the gate reads
   * them). The bash tool asks before running one and records what a command writes. Undefined:
   * nothing is tracked.
   */
  written?: WrittenFiles
  /**
   * What a command changed on disk, for diagnostics: the bash tool calls `begin` just before its
   * command starts, and the `end` it got once the command exited. `end` resolves with the errors
   * of the changed files that have a language server, to append to the output ("" for none).
   * Neither rejects. Undefined: commands' changes are not reported.
   */
  commandChanges?: { begin(sessionID: string): Promise<{ end(): Promise<string> }> }
  /**
   * The language servers' answers for the lsp tool (operation on a file, positions 1-based).
   * Resolves with their results ([] when none); rejects with a readable error when no server
   * for the file can answer. Undefined: code intelligence is off (`lsp: false`).
   */
  lsp?: {
    query(
      input: { operation: "goToDefinition" | "findReferences" | "hover" | "documentSymbol" | "workspaceSymbol"; file: string; line?: number; character?: number; query?: string },
      signal: AbortSignal,
    ): Promise<unknown[]>
    /**
     * Called by the read tool after it read a text file: starts that file's language servers
     * in the background, so the first edit finds them ready. Returns at once; never throws.
     * Undefined: nothing is warmed.
     */
    warm?(file: string): void
  }
}

export interface ToolContext {
  sessionID: string
  messageID: string
  callID: string
  agent: string
  /** The project directory; relative paths resolve against it. */
  directory: string
  /** The git worktree root (or `directory` outside git). */
  worktree: string
  abort: AbortSignal
  /** Resolves when allowed; throws a named permission error (denied / rejected / corrected) otherwise. */
  ask(request: AskRequest): Promise<void>
  /** Updates the running part's title and metadata; clients see it at once. */
  metadata(input: { title?: string; metadata?: Record<string, unknown> }): void
  services: ToolServices
  /** Where truncated outputs are saved in full. */
  outputDir: string
  limits: { maxLines: number; maxBytes: number }
  /** Whether the agent may use the task tool (changes the truncation hint). */
  canDelegate: boolean
  /** The user typed this call (`!cmd`): nothing is asked, so nothing may be escalated either. Undefined: false. */
  byUser?: boolean
}

export interface ToolDefinition<P extends z.ZodType = z.ZodType> {
  id: string
  description: string
  parameters: P
  execute(args: z.infer<P>, ctx: ToolContext): Promise<ToolResult>
  /**
   * How a call looks to a person (title, kind, locations relative to `project.worktree`).
   * Called by the tool-call pipeline on every state transition, with whatever input the
   * model sent (possibly invalid: must not throw). Undefined: the generic summary.
   */
  summary?(input: Record<string, unknown>, state: ToolState, project: { directory: string; worktree: string }): ToolSummary
}

export interface Tool<P extends z.ZodType = z.ZodType> extends ToolDefinition<P> {
  /** JSON Schema of the parameters, as sent to the provider. */
  jsonSchema: Record<string, unknown>
}

export function defineTool<P extends z.ZodType>(def: ToolDefinition<P>): Tool<P> {
  const jsonSchema = z.toJSONSchema(def.parameters, { target: "draft-7", io: "input" }) as Record<string, unknown>
  delete jsonSchema.$schema
  return { ...def, jsonSchema }
}

/** The model called a tool with arguments that do not fit its schema. */
export class ToolInvalidArgumentsError extends Error {
  static readonly info = declareError("ToolInvalidArgumentsError", { status: 400 })
  constructor(tool: string, detail: string) {
    super(`The ${tool} tool was called with invalid arguments: ${detail}\nPlease rewrite the input so it satisfies the expected schema.`)
    this.name = "ToolInvalidArgumentsError"
  }
}

export function parseArguments<P extends z.ZodType>(tool: Tool<P>, input: unknown): z.infer<P> {
  const result = tool.parameters.safeParse(input)
  if (result.success) return result.data
  const detail = result.error.issues
    .map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`)
    .join("; ")
  throw new ToolInvalidArgumentsError(tool.id, detail)
}

import { z } from "zod"
import { FilePartSource } from "./part"
import { OutputFormat } from "./message"
import { ModelRef } from "./model-ref"
import { PermissionReply, Ruleset } from "./permission"

/** See inbox.ts (defined here, where the prompt bodies use it, so the two files import one way). */
export const Delivery = z.enum(["steer", "queue"])
export type Delivery = z.infer<typeof Delivery>

// Bodies accepted by the HTTP API (OpenCode's shapes). Parts sent by clients carry no
// session/message ids; the server assigns them.

export const TextPartInput = z.object({
  id: z.string().optional(),
  type: z.literal("text"),
  text: z.string(),
  synthetic: z.boolean().optional(),
  ignored: z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
})
export const FilePartInput = z.object({
  id: z.string().optional(),
  type: z.literal("file"),
  mime: z.string(),
  filename: z.string().optional(),
  url: z.string(),
  source: FilePartSource.optional(),
})
export const AgentPartInput = z.object({
  id: z.string().optional(),
  type: z.literal("agent"),
  name: z.string(),
  source: z.object({ value: z.string(), start: z.number(), end: z.number() }).optional(),
})
export const SubtaskPartInput = z.object({
  id: z.string().optional(),
  type: z.literal("subtask"),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  model: z.object({ providerID: z.string(), modelID: z.string() }).optional(),
  command: z.string().optional(),
})
export const PartInput = z.discriminatedUnion("type", [TextPartInput, FilePartInput, AgentPartInput, SubtaskPartInput])
export type PartInput = z.infer<typeof PartInput>
export type TextPartInput = z.infer<typeof TextPartInput>
export type FilePartInput = z.infer<typeof FilePartInput>

export const PromptInput = z.object({
  messageID: z.string().optional(),
  model: ModelRef.optional(),
  agent: z.string().optional(),
  noReply: z.boolean().optional(),
  tools: z.record(z.string(), z.boolean()).optional(),
  format: OutputFormat.optional(),
  system: z.string().optional(),
  variant: z.string().optional(),
  parts: z.array(PartInput),
  /** wright: how the prompt is delivered when the session is busy (default "queue"); ignored when it is idle. */
  delivery: Delivery.optional(),
})
export type PromptInput = z.infer<typeof PromptInput>

export const SessionCreateInput = z.object({
  parentID: z.string().optional(),
  title: z.string().optional(),
  permission: Ruleset.optional(),
  /** wright: run the session in a new git worktree on branch `wright/<name>` (true: a generated name). */
  worktree: z.union([z.string(), z.literal(true)]).optional(),
})
export type SessionCreateInput = z.infer<typeof SessionCreateInput>

// Bodies and answers of the server's other routes (OpenCode's shapes).

export const SessionUpdateInput = z.object({
  title: z.string().optional(),
  permission: Ruleset.optional(),
  time: z.object({ archived: z.number().optional() }).optional(),
})
export type SessionUpdateInput = z.infer<typeof SessionUpdateInput>

export const SessionForkInput = z.object({ messageID: z.string().optional() })
export type SessionForkInput = z.infer<typeof SessionForkInput>

export const SessionRevertInput = z.object({
  messageID: z.string(),
  partID: z.string().optional(),
  /** wright: restore files the user changed after the session's step too. */
  force: z.boolean().optional(),
})
export type SessionRevertInput = z.infer<typeof SessionRevertInput>

export const SessionShellInput = z.object({
  command: z.string().min(1),
  agent: z.string().optional(),
  model: z.object({ providerID: z.string(), modelID: z.string() }).optional(),
  messageID: z.string().optional(),
})
export type SessionShellInput = z.infer<typeof SessionShellInput>

export const SessionSummarizeInput = z.object({
  providerID: z.string().optional(),
  modelID: z.string().optional(),
  auto: z.boolean().optional(),
})
export type SessionSummarizeInput = z.infer<typeof SessionSummarizeInput>

export const SessionCommandInput = z.object({
  command: z.string().min(1),
  arguments: z.string().default(""),
  agent: z.string().optional(),
  /** "provider/model" */
  model: z.string().optional(),
  variant: z.string().optional(),
  messageID: z.string().optional(),
  parts: z.array(FilePartInput).optional(),
  /** wright: as PromptInput's `delivery`. */
  delivery: Delivery.optional(),
})
export type SessionCommandInput = z.infer<typeof SessionCommandInput>

export const PermissionReplyInput = z.object({ reply: PermissionReply, message: z.string().optional() })
export type PermissionReplyInput = z.infer<typeof PermissionReplyInput>
/** The legacy `/session/:id/permissions/:permissionID` body. */
export const PermissionRespondInput = z.object({ response: PermissionReply, message: z.string().optional() })
export type PermissionRespondInput = z.infer<typeof PermissionRespondInput>

export const QuestionReplyInput = z.object({ answers: z.array(z.array(z.string())) })
export type QuestionReplyInput = z.infer<typeof QuestionReplyInput>

export const HealthInfo = z.object({ healthy: z.literal(true), version: z.string() })
export type HealthInfo = z.infer<typeof HealthInfo>

/** Whether a folder's own config applies in full (`GET /trust`), and what it asked for that was held back. */
export const TrustStatus = z.object({
  directory: z.string(),
  trusted: z.boolean(),
  source: z.enum(["record", "flag"]).optional(),
  /** Trusted once, but its config changed since. */
  changed: z.boolean(),
  /** One line per thing held back; empty when the folder's config needs no trust. */
  ignored: z.array(z.string()),
})
export type TrustStatus = z.infer<typeof TrustStatus>

export const PathInfo = z.object({ home: z.string(), state: z.string(), config: z.string(), worktree: z.string(), directory: z.string() })
export type PathInfo = z.infer<typeof PathInfo>

export const FileNode = z.object({
  name: z.string(),
  /** Relative to the project directory. */
  path: z.string(),
  absolute: z.string(),
  type: z.enum(["file", "directory"]),
  ignored: z.boolean(),
})
export type FileNode = z.infer<typeof FileNode>

export const FileContent = z.object({
  type: z.enum(["text", "binary"]),
  content: z.string(),
  encoding: z.literal("base64").optional(),
  mimeType: z.string().optional(),
})
export type FileContent = z.infer<typeof FileContent>

/** One changed file of `git status`, with line counts. */
export const FileStatus = z.object({
  path: z.string(),
  added: z.number(),
  removed: z.number(),
  status: z.enum(["added", "deleted", "modified"]),
})
export type FileStatus = z.infer<typeof FileStatus>

/** One ripgrep match (`GET /find`), as ripgrep's JSON output has it. */
export const FindMatch = z.object({
  path: z.object({ text: z.string() }),
  lines: z.object({ text: z.string() }),
  line_number: z.number(),
  absolute_offset: z.number(),
  submatches: z.array(z.object({ match: z.object({ text: z.string() }), start: z.number(), end: z.number() })),
})
export type FindMatch = z.infer<typeof FindMatch>

const Modalities = z.object({ text: z.boolean(), audio: z.boolean(), image: z.boolean(), video: z.boolean(), pdf: z.boolean() })
const Rates = z.object({ input: z.number(), output: z.number(), cache: z.object({ read: z.number(), write: z.number() }) })

export const ProviderModel = z.object({
  id: z.string(),
  providerID: z.string(),
  api: z.object({ id: z.string(), url: z.string(), npm: z.string() }),
  name: z.string(),
  family: z.string().optional(),
  capabilities: z.object({
    temperature: z.boolean(),
    reasoning: z.boolean(),
    attachment: z.boolean(),
    toolcall: z.boolean(),
    input: Modalities,
    output: Modalities,
    interleaved: z.boolean(),
  }),
  cost: Rates.extend({ experimentalOver200K: Rates.optional() }),
  limit: z.object({ context: z.number(), input: z.number().optional(), output: z.number() }),
  status: z.enum(["alpha", "beta", "deprecated", "active"]),
  options: z.record(z.string(), z.unknown()),
  headers: z.record(z.string(), z.string()),
  release_date: z.string(),
  /** Named option sets (`--variant`, the TUI's ctrl+t), in cycling order. */
  variants: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
})
export type ProviderModel = z.infer<typeof ProviderModel>

export const Provider = z.object({
  id: z.string(),
  name: z.string(),
  source: z.enum(["env", "config", "custom", "api"]),
  env: z.array(z.string()),
  options: z.record(z.string(), z.unknown()),
  models: z.record(z.string(), ProviderModel),
})
export type Provider = z.infer<typeof Provider>

export const ConfigProviders = z.object({
  providers: z.array(Provider),
  /** Each provider's own default model (OpenCode's shape). */
  default: z.record(z.string(), z.string()),
  /** wright's: the model a prompt that names none goes to (the config's "model", else the first usable provider's best), as provider/model; absent when there is none. */
  model: z.string().optional(),
})
export type ConfigProviders = z.infer<typeof ConfigProviders>
export const ProviderList = z.object({ all: z.array(Provider), default: z.record(z.string(), z.string()), connected: z.array(z.string()) })
export type ProviderList = z.infer<typeof ProviderList>

export const CommandInfo = z.object({
  name: z.string(),
  description: z.string().optional(),
  agent: z.string().optional(),
  model: z.string().optional(),
  source: z.enum(["command", "mcp", "skill"]).optional(),
  template: z.string(),
  subtask: z.boolean().optional(),
  hints: z.array(z.string()),
})
export type CommandInfo = z.infer<typeof CommandInfo>

/** `GET /agent` entries (OpenCode's Agent shape; `builtIn` is wright's name for `native`). */
export const AgentInfo = z.object({
  name: z.string(),
  description: z.string().optional(),
  mode: z.enum(["primary", "subagent", "all"]),
  hidden: z.boolean().optional(),
  native: z.boolean().optional(),
  builtIn: z.boolean().optional(),
  model: z.object({ providerID: z.string(), modelID: z.string() }).optional(),
  variant: z.string().optional(),
  prompt: z.string().optional(),
  temperature: z.number().optional(),
  topP: z.number().optional(),
  steps: z.number().optional(),
  color: z.string().optional(),
  options: z.record(z.string(), z.unknown()),
  permission: z.array(z.unknown()),
})
export type AgentInfo = z.infer<typeof AgentInfo>

export const SkillInfo = z.object({ name: z.string(), description: z.string().optional(), location: z.string(), content: z.string() })
export type SkillInfo = z.infer<typeof SkillInfo>

export const ToolListItem = z.object({ id: z.string(), description: z.string(), parameters: z.unknown() })
export type ToolListItem = z.infer<typeof ToolListItem>

/** An event of `/global/event`: the project it belongs to and the event itself. */
export const GlobalEvent = z.object({ directory: z.string(), payload: z.object({ type: z.string(), properties: z.record(z.string(), z.unknown()) }) })
export type GlobalEvent = z.infer<typeof GlobalEvent>

/** A configured MCP server: connected, turned off in config, failed (with why), or waiting for an OAuth login. */
export const McpStatus = z.discriminatedUnion("status", [
  z.object({ status: z.literal("connected") }),
  z.object({ status: z.literal("disabled") }),
  z.object({ status: z.literal("failed"), error: z.string() }),
  z.object({ status: z.literal("needs_auth") }),
  z.object({ status: z.literal("needs_client_registration"), error: z.string() }),
])
export type McpStatus = z.infer<typeof McpStatus>

/**
 * MCP servers for one session only (an editor's, over ACP): a local server by its command, or a
 * remote one by URL (Streamable HTTP, then SSE). They start with PUT /session/:id/mcp and stop
 * with DELETE, or when the session is deleted.
 */
export const SessionMcpServer = z.discriminatedUnion("type", [
  z.object({ type: z.literal("local"), command: z.array(z.string()).min(1), environment: z.record(z.string(), z.string()).optional() }),
  z.object({ type: z.literal("remote"), url: z.string().url(), headers: z.record(z.string(), z.string()).optional() }),
])
export type SessionMcpServer = z.infer<typeof SessionMcpServer>
export const SessionMcpInput = z.object({ servers: z.record(z.string().min(1), SessionMcpServer) })
export type SessionMcpInput = z.infer<typeof SessionMcpInput>

/** Which of a session's file reads and writes go through its editor (ACP's fs capabilities), so unsaved buffers are seen. */
export const SessionEditorInput = z.object({ read: z.boolean(), write: z.boolean() })
export type SessionEditorInput = z.infer<typeof SessionEditorInput>
/** The editor's answer to `editor.file.requested`: a read's text, `{}` for a write done, or why it failed. */
export const EditorFileReply = z.object({ content: z.string().optional(), error: z.string().optional() })
export type EditorFileReply = z.infer<typeof EditorFileReply>

/** A language server started for a root (OpenCode's LSPStatus; `error` says why when it failed or may not run; `sandboxed`: it runs in wright's sandbox without network). */
export const LspStatus = z.object({ id: z.string(), name: z.string(), root: z.string(), status: z.enum(["connected", "error"]), error: z.string().optional(), sandboxed: z.boolean().optional() })
export type LspStatus = z.infer<typeof LspStatus>

/** A formatter and whether it applies to this project (OpenCode's FormatterStatus). */
/** One entry of GET /plugin: a plugin, custom tool file or command-hooks source, and what it added or why it failed. */
export const PluginStatus = z.object({
  name: z.string(),
  kind: z.enum(["file", "npm", "url", "tool", "hooks"]),
  source: z.string(),
  version: z.string().optional(),
  status: z.enum(["loaded", "failed", "disabled"]),
  hooks: z.array(z.string()),
  tools: z.array(z.string()),
  error: z.string().optional(),
  loadMs: z.number().optional(),
})
export type PluginStatus = z.infer<typeof PluginStatus>

export const FormatterStatus = z.object({ name: z.string(), extensions: z.array(z.string()), enabled: z.boolean() })
export type FormatterStatus = z.infer<typeof FormatterStatus>

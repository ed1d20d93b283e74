import { z } from "zod"
import { AgentConfig } from "./agent"
import { HooksConfig } from "./hooks"
import { McpSection } from "./mcp"
import { PermissionConfig } from "./permission"
import { ProviderConfig } from "./provider"
import { SandboxConfig } from "./sandbox"

const PositiveInt = z.number().int().positive()
const NonNegativeInt = z.number().int().nonnegative()
const Strings = z.array(z.string())

/** `command.<name>`: a slash command whose template becomes the prompt. */
export const CommandConfig = z.object({
  template: z.string(),
  description: z.string().optional(),
  agent: z.string().optional(),
  model: z.string().optional(),
  variant: z.string().optional(),
  subtask: z.boolean().optional(),
})
export type CommandConfig = z.infer<typeof CommandConfig>

/** A plugin: its specifier, or `[specifier, options]`. */
export const PluginSpec = z.union([z.string(), z.tuple([z.string(), z.record(z.string(), z.unknown())])])
export type PluginSpec = z.infer<typeof PluginSpec>

export const FormatterConfig = z.union([
  z.boolean(),
  z.record(
    z.string(),
    z.object({
      disabled: z.boolean().optional(),
      command: Strings.optional(),
      environment: z.record(z.string(), z.string()).optional(),
      extensions: Strings.optional(),
    }),
  ),
])
export type FormatterConfig = z.infer<typeof FormatterConfig>

export const LspServerConfig = z.object({
  disabled: z.boolean().optional(),
  command: Strings.optional(),
  extensions: Strings.optional(),
  env: z.record(z.string(), z.string()).optional(),
  initialization: z.record(z.string(), z.unknown()).optional(),
})
// `timeout` (ms, wright's): how long a write waits for the servers' diagnostics; every other key names a server.
export const LspConfig = z.union([z.boolean(), z.object({ timeout: PositiveInt.optional() }).catchall(LspServerConfig)])
export type LspConfig = z.infer<typeof LspConfig>

export const CompactionConfig = z.object({
  auto: z.boolean().optional(),
  prune: z.boolean().optional(),
  tail_turns: NonNegativeInt.optional(),
  preserve_recent_tokens: NonNegativeInt.optional(),
  reserved: NonNegativeInt.optional(),
})
export type CompactionConfig = z.infer<typeof CompactionConfig>

export const ServerConfig = z.object({
  port: PositiveInt.optional(),
  hostname: z.string().optional(),
  mdns: z.boolean().optional(),
  mdnsDomain: z.string().optional(),
  cors: Strings.optional(),
  /** Project directories, besides the one a server starts in, that requests may name (global config only). */
  directories: Strings.optional(),
})
export type ServerConfig = z.infer<typeof ServerConfig>

/**
 * The websearch tool's backend; without it the tool is not offered. `url`: a SearXNG
 * instance, or another base URL for Exa's or Tavily's API. `apiKey`: else the stored key
 * (`wright auth login exa|tavily`), else EXA_API_KEY / TAVILY_API_KEY.
 */
export const WebsearchConfig = z.object({
  /** "auto" and "parallel" are OpenCode's keyless backends: accepted so its configs load, and only warned about. */
  provider: z.enum(["exa", "tavily", "searxng", "auto", "parallel"]),
  url: z.string().optional(),
  apiKey: z.string().optional(),
})
export type WebsearchConfig = z.infer<typeof WebsearchConfig>

/** Experimental switches; unknown ones pass through so new flags need no schema change. */
export const ExperimentalConfig = z.looseObject({
  disable_paste_summary: z.boolean().optional(),
  batch_tool: z.boolean().optional(),
  openTelemetry: z.boolean().optional(),
  primary_tools: Strings.optional(),
  continue_loop_on_deny: z.boolean().optional(),
  mcp_timeout: PositiveInt.optional(),
  policies: z.array(z.unknown()).optional(),
})
export type ExperimentalConfig = z.infer<typeof ExperimentalConfig>

/**
 * The whole config file, OpenCode's keys. Unknown top-level keys are dropped (the loader
 * warns about them); unknown keys inside known objects are dropped silently, except where
 * a sub-schema passes them through (provider options, models, agents, experimental).
 */
export const Config = z.object({
  $schema: z.string().optional(),
  model: z.string().optional(),
  small_model: z.string().optional(),
  default_agent: z.string().optional(),
  username: z.string().optional(),
  shell: z.string().optional(),
  logLevel: z.enum(["DEBUG", "INFO", "WARN", "ERROR"]).optional(),
  provider: z.record(z.string(), ProviderConfig).optional(),
  disabled_providers: Strings.optional(),
  enabled_providers: Strings.optional(),
  agent: z.record(z.string(), AgentConfig).optional(),
  /** @deprecated merged into `agent` with `mode: "primary"` by the loader */
  mode: z.record(z.string(), AgentConfig).optional(),
  permission: PermissionConfig.optional(),
  /** @deprecated merged into `permission` by the loader */
  tools: z.record(z.string(), z.boolean()).optional(),
  instructions: Strings.optional(),
  command: z.record(z.string(), CommandConfig).optional(),
  mcp: McpSection.optional(),
  compaction: CompactionConfig.optional(),
  tool_output: z.object({ max_lines: PositiveInt.optional(), max_bytes: PositiveInt.optional() }).optional(),
  subagent_depth: NonNegativeInt.optional(),
  /** `false` turns snapshots (undo restoring files, session diffs) off; an object tunes them. */
  snapshot: z
    .union([
      z.boolean(),
      z
        .object({
          ignore: Strings.optional(),
          max_file_size: PositiveInt.optional(),
          max_files: PositiveInt.optional(),
          max_size: PositiveInt.optional(),
        })
        .strict(),
    ])
    .optional(),
  share: z.enum(["manual", "auto", "disabled"]).optional(),
  /** @deprecated `true` becomes `share: "auto"` */
  autoshare: z.boolean().optional(),
  autoupdate: z.union([z.boolean(), z.literal("notify")]).optional(),
  server: ServerConfig.optional(),
  skills: z.object({ paths: Strings.optional(), urls: Strings.optional() }).optional(),
  watcher: z.object({ ignore: Strings.optional() }).optional(),
  formatter: FormatterConfig.optional(),
  lsp: LspConfig.optional(),
  plugin: z.array(PluginSpec).optional(),
  /** wright's own key: command hooks in Claude Code's format (config/hooks.ts). */
  hooks: HooksConfig.optional(),
  layout: z.enum(["auto", "stretch"]).optional(),
  /** The TUI (OpenCode's key; its other settings pass through). `notifications`: ring the terminal when a session needs you or finishes (default true: OSC 9, OSC 777 or the bell, by terminal); false turns it off. */
  tui: z.object({ notifications: z.union([z.boolean(), z.enum(["osc9", "osc777", "bell"])]).optional() }).passthrough().optional(),
  attachment: z
    .object({
      image: z
        .object({
          auto_resize: z.boolean().optional(),
          max_width: PositiveInt.optional(),
          max_height: PositiveInt.optional(),
          max_base64_bytes: PositiveInt.optional(),
        })
        .optional(),
    })
    .optional(),
  enterprise: z.object({ url: z.string().optional() }).optional(),
  /** wright's own key: the models.dev-format catalogue `wright models --refresh` fetches (global config only; OpenCode reads OPENCODE_MODELS_URL). */
  catalog: z.object({ url: z.string().optional() }).optional(),
  experimental: ExperimentalConfig.optional(),
  sandbox: SandboxConfig.optional(),
  websearch: WebsearchConfig.optional(),
  /** wright's own key: `wright github run` (GitHub Actions). */
  github: z
    .object({
      /** The word a comment must contain to start wright (default "/wright"). */
      mention: z.string().min(1).optional(),
      /** Comment authors' `author_association`s that may start it (default OWNER, MEMBER, COLLABORATOR). */
      associations: z.array(z.enum(["OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "MANNEQUIN", "NONE"])).optional(),
    })
    .strict()
    .optional(),
})
export type Config = z.infer<typeof Config>

import { z } from "zod"

const PositiveInt = z.number().int().positive()

export const McpLocalConfig = z.object({
  type: z.literal("local"),
  /** Command and its arguments, e.g. `["npx", "-y", "some-server"]`. */
  command: z.array(z.string()).min(1),
  cwd: z.string().optional(),
  environment: z.record(z.string(), z.string()).optional(),
  enabled: z.boolean().optional(),
  timeout: PositiveInt.optional(),
  /** wright's own key: start the server inside the OS sandbox (see `sandbox`). */
  sandbox: z.boolean().optional(),
})
export type McpLocalConfig = z.infer<typeof McpLocalConfig>

export const McpOAuthConfig = z.object({
  clientId: z.string().optional(),
  clientSecret: z.string().optional(),
  scope: z.string().optional(),
  callbackPort: z.number().int().min(1).max(65535).optional(),
  redirectUri: z.string().optional(),
})
export type McpOAuthConfig = z.infer<typeof McpOAuthConfig>

export const McpRemoteConfig = z.object({
  type: z.literal("remote"),
  url: z.string(),
  headers: z.record(z.string(), z.string()).optional(),
  oauth: z.union([McpOAuthConfig, z.literal(false)]).optional(),
  enabled: z.boolean().optional(),
  timeout: PositiveInt.optional(),
})
export type McpRemoteConfig = z.infer<typeof McpRemoteConfig>

/**
 * `mcp.<name>`: a local (stdio) or remote (HTTP) server, or just `{enabled}` to switch
 * off a server that a lower-precedence file defined.
 */
export const McpConfig = z.union([
  z.discriminatedUnion("type", [McpLocalConfig, McpRemoteConfig]),
  z.strictObject({ enabled: z.boolean() }),
])
export type McpConfig = z.infer<typeof McpConfig>

/** Share of the model's context MCP tool definitions may take before they are deferred (`mcp.max_tool_share`). */
export const DEFAULT_MAX_TOOL_SHARE = 0.1

/**
 * The `mcp` key: servers by name, plus `max_tool_share` (0..1), the share of the model's
 * context the MCP tools' definitions may take before they are deferred behind a search tool.
 */
export const McpSection = z.record(z.string(), z.unknown()).transform((section, ctx) => {
  const out: Record<string, McpConfig | number> = {}
  for (const [name, value] of Object.entries(section)) {
    if (typeof value === "number") {
      if (name !== "max_tool_share") ctx.addIssue({ code: "custom", path: [name], message: `expected an MCP server ({"type": "local" | "remote", …}); only mcp.max_tool_share is a number` })
      else if (!(value >= 0 && value <= 1)) ctx.addIssue({ code: "custom", path: [name], message: `expected a share of the context between 0 and 1 (e.g. 0.1 for 10%), received ${value}` })
      else out[name] = value
      continue
    }
    // Each server is checked on its own, so an error names the field inside it (mcp.fs.command).
    const r = McpConfig.safeParse(value)
    if (r.success) out[name] = r.data
    else for (const issue of r.error.issues) ctx.addIssue({ ...issue, path: [name, ...issue.path] } as never)
  }
  return out
})
export type McpSection = z.infer<typeof McpSection>

/** The servers of an `mcp` section, without `max_tool_share`. */
export function mcpServers(section: McpSection | undefined): [string, McpConfig][] {
  return Object.entries(section ?? {}).filter((e): e is [string, McpConfig] => typeof e[1] !== "number")
}

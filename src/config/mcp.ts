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

// The text of `/status`: what extends this project and whether it works.
import type { McpStatus } from "../protocol"
import type { PluginInfo } from "./api"

export function statusText(plugins: PluginInfo[] | undefined, mcp: Record<string, McpStatus> | undefined): string {
  const lines = ["## Plugins, custom tools and hooks"]
  if (!plugins) lines.push("- (this server cannot list them)")
  else if (plugins.length === 0) lines.push("- none")
  for (const p of plugins ?? []) {
    const what = [p.hooks.length ? `hooks: ${p.hooks.join(", ")}` : "", p.tools.length ? `tools: ${p.tools.join(", ")}` : ""].filter(Boolean).join(" · ")
    lines.push(`- **${p.name}**${p.version ? `@${p.version}` : ""} ${p.status} (${p.kind}: \`${p.source}\`)${what ? ` — ${what}` : ""}`)
    if (p.error) lines.push(`  - error: ${p.error}`)
  }
  lines.push("", "## MCP servers")
  const servers = Object.entries(mcp ?? {})
  if (servers.length === 0) lines.push("- none")
  for (const [name, s] of servers) lines.push(`- **${name}** ${s.status}${s.status === "failed" ? `: ${s.error}` : ""}`)
  return lines.join("\n")
}

import { z } from "zod"
import { AgentInfo, CommandInfo, SkillInfo } from "../../protocol"
import type { App } from "../../session"
import { route } from "../route"

/** `$1`, `$2`… and `$ARGUMENTS` in a template: what a client shows as argument hints. */
export function hints(template: string): string[] {
  const numbered = [...new Set([...template.matchAll(/\$(\d+)/g)].map((m) => m[0]))].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
  return template.includes("$ARGUMENTS") ? [...numbered, "$ARGUMENTS"] : numbered
}

/** Commands (built-in, Markdown, config), then skills (which a user can run as `/<skill>` too). */
function commands(app: App): CommandInfo[] {
  const out: CommandInfo[] = app.commands().map((c) => ({
    name: c.name,
    template: c.template,
    source: c.source === "mcp" ? "mcp" : "command",
    hints: hints(c.template),
    ...(c.description !== undefined ? { description: c.description } : {}),
    ...(c.agent !== undefined ? { agent: c.agent } : {}),
    ...(c.model !== undefined ? { model: c.model } : {}),
    ...(c.subtask !== undefined ? { subtask: c.subtask } : {}),
  }))
  const taken = new Set(out.map((c) => c.name))
  for (const s of app.skills) if (!taken.has(s.name)) out.push({ name: s.name, description: s.description, template: s.content, source: "skill", hints: [] })
  return out
}

export const agentRoutes = [
  route({
    method: "get",
    path: "/agent",
    operationId: "app.agents",
    summary: "Agents of the project, the default first",
    tags: ["agent"],
    response: z.array(AgentInfo),
    handler: ({ app }) => app.agents.list().map((a) => ({ ...a, builtIn: a.native })),
  }),
  route({
    method: "get",
    path: "/command",
    operationId: "command.list",
    summary: "Slash commands (built-in, Markdown files, config), then skills",
    tags: ["command"],
    response: z.array(CommandInfo),
    // MCP prompts are commands: servers still connecting are waited for (each within its timeout).
    handler: async ({ app, c }) => {
      await app.mcp.ready(c.req.raw.signal)
      return commands(app)
    },
  }),
  route({
    method: "get",
    path: "/skill",
    operationId: "app.skills",
    summary: "Skills found in the project's and the user's config directories",
    tags: ["skill"],
    response: z.array(SkillInfo),
    handler: ({ app }) => app.skills.map((s) => ({ name: s.name, description: s.description, location: s.location, content: s.content })),
  }),
]

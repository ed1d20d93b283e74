// MCP resources for the model: `list_mcp_resources` and `read_mcp_resource` (as OpenCode
// names them), offered while a connected server has resources. Reading asks the `read`
// permission with the pattern `mcp:<server>:<uri>`. The same text feeds `@` mentions.
import { z } from "zod"
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js"
import { defineTool, type Tool, type ToolAttachment } from "../tool"

/** A resource of a connected server, as `@` mentions and the resource tools offer it. */
export interface McpResource {
  server: string
  uri: string
  name: string
  description?: string
  mimeType?: string
}

export interface ResourceSource {
  resources(): McpResource[]
  resourceTemplates(): { server: string; uriTemplate: string; name: string; description?: string; mimeType?: string }[]
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult>
}

export const RESOURCE_TOOL_IDS = ["list_mcp_resources", "read_mcp_resource"] as const

const ATTACHABLE = new Set(["application/pdf", "image/gif", "image/jpeg", "image/png", "image/webp"])
const MAX_BLOB_BYTES = 10 * 1024 * 1024

/** A `resources/read` answer as text for the model, with images and PDFs as attachments. */
export function resourceContent(result: ReadResourceResult): { text: string; attachments: ToolAttachment[] } {
  const texts: string[] = []
  const attachments: ToolAttachment[] = []
  for (const c of result.contents) {
    if ("text" in c && typeof c.text === "string") texts.push(c.text)
    else if ("blob" in c && typeof c.blob === "string") {
      const mime = c.mimeType ?? "application/octet-stream"
      const size = Math.floor((c.blob.length * 3) / 4)
      if (ATTACHABLE.has(mime) && size <= MAX_BLOB_BYTES) attachments.push({ mime, url: `data:${mime};base64,${c.blob}`, filename: c.uri })
      else texts.push(`[Binary MCP resource omitted: ${c.uri} (${mime}, ${size} bytes)]`)
    }
  }
  return { text: texts.join("\n\n"), attachments }
}

export function resourceTools(source: ResourceSource): Tool[] {
  const list = defineTool({
    id: "list_mcp_resources",
    description:
      "Lists the resources (and resource templates) that connected MCP servers offer: server, URI, name, type and description. Read one with read_mcp_resource.",
    parameters: z.object({ server: z.string().optional().describe("Only this MCP server's resources") }),
    async execute(args) {
      const resources = source.resources().filter((r) => !args.server || r.server === args.server)
      const templates = source.resourceTemplates().filter((t) => !args.server || t.server === args.server)
      const lines = resources.map((r) => `${r.server}  ${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ""}${r.description ? ` - ${r.description}` : ""}`)
      if (templates.length) {
        lines.push("", "Templates (fill in the {placeholders} and read the URI):")
        for (const t of templates) lines.push(`${t.server}  ${t.uriTemplate}  ${t.name}${t.description ? ` - ${t.description}` : ""}`)
      }
      const output = lines.length ? lines.join("\n") : args.server ? `MCP server "${args.server}" offers no resources.` : "No MCP server offers resources."
      return { title: args.server ? `${args.server} resources` : "MCP resources", output, metadata: { count: resources.length } }
    },
  })
  const read = defineTool({
    id: "read_mcp_resource",
    description: "Reads one resource of an MCP server by its URI (list them with list_mcp_resources).",
    parameters: z.object({ server: z.string().describe("The MCP server's name"), uri: z.string().describe("The resource's URI") }),
    async execute(args, ctx) {
      const pattern = `mcp:${args.server}:${args.uri}`
      await ctx.ask({ permission: "read", patterns: [pattern], always: [pattern], metadata: { server: args.server, uri: args.uri } })
      const { text, attachments } = resourceContent(await source.readResource(args.server, args.uri, ctx.abort))
      return {
        title: args.uri,
        output: text || "(the resource has no text)",
        metadata: { server: args.server, uri: args.uri },
        ...(attachments.length ? { attachments } : {}),
      }
    },
  })
  return [list, read] as unknown as Tool[]
}

import { z } from "zod"
import type { CallToolResult, Tool as McpToolDef } from "@modelcontextprotocol/sdk/types.js"
import type { Tool, ToolAttachment, ToolResult } from "../tool"

/** Characters a provider accepts in a tool name; everything else becomes `_` (as OpenCode). */
export function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_")
}

/** The id the model sees and the permission key: `sanitize(server)_sanitize(tool)`. */
export function mcpToolId(server: string, tool: string): string {
  return `${sanitize(server)}_${sanitize(tool)}`
}

/** Blobs of these types become attachments; others are described in the text instead. */
const ATTACHABLE = new Set(["application/pdf", "image/gif", "image/jpeg", "image/png", "image/webp"])
const MAX_BLOB_BYTES = 10 * 1024 * 1024

/** The server's input schema as the provider gets it: always an object, no extra keys. */
export function inputSchema(def: McpToolDef): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = def.inputSchema as Record<string, unknown>
  return { ...schema, type: "object", properties: schema.properties ?? {}, additionalProperties: false }
}

export interface McpToolInput {
  server: string
  def: McpToolDef
  /** Sends `tools/call`; errors thrown here already read well to the model. */
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>
}

/** One MCP tool as a wright tool: asks permission under its own name, then calls the server. */
export function mcpTool(input: McpToolInput): Tool {
  const { server, def } = input
  const id = mcpToolId(server, def.name)
  // The server validates the arguments against its own schema and answers with an error the model can read.
  const parameters = z.record(z.string(), z.unknown()).default({})
  const tool: Tool<typeof parameters> = {
    id,
    description: def.description ?? def.title ?? "",
    parameters,
    jsonSchema: inputSchema(def),
    async execute(args, ctx) {
      await ctx.ask({ permission: id, patterns: ["*"], always: ["*"], metadata: {} })
      const result = await input.call(def.name, args, ctx.abort)
      return toToolResult(result, { title: def.title ?? def.name, metadata: { server, tool: def.name } })
    },
  }
  return tool as unknown as Tool
}

/**
 * Folds a `tools/call` result into a tool result: text joined, images and small supported
 * blobs as attachments, other binaries described. A result flagged `isError` throws, so the
 * call ends in the tool's error state with the server's message.
 */
export function toToolResult(result: CallToolResult, base: { title: string; metadata: Record<string, unknown> }): ToolResult {
  const texts: string[] = []
  const attachments: ToolAttachment[] = []
  for (const item of result.content ?? []) {
    switch (item.type) {
      case "text":
        texts.push(item.text)
        break
      case "image":
        attachments.push({ mime: item.mimeType, url: `data:${item.mimeType};base64,${item.data}` })
        break
      case "audio":
        texts.push(`[Audio omitted: ${item.mimeType}, ${formatBytes(base64Bytes(item.data))}]`)
        break
      case "resource_link":
        texts.push(`[Resource: ${item.name} ${item.uri}${item.mimeType ? ` (${item.mimeType})` : ""}]`)
        break
      case "resource": {
        const r = item.resource
        if ("text" in r && typeof r.text === "string") texts.push(r.text)
        if ("blob" in r && typeof r.blob === "string") {
          const mime = r.mimeType ?? "application/octet-stream"
          const size = base64Bytes(r.blob)
          if (!ATTACHABLE.has(mime)) texts.push(`[Binary MCP resource omitted: ${r.uri} (${mime}, ${formatBytes(size)}) is not a supported attachment type]`)
          else if (size > MAX_BLOB_BYTES) texts.push(`[Binary MCP resource omitted: ${r.uri} (${mime}, ${formatBytes(size)}) exceeds ${formatBytes(MAX_BLOB_BYTES)}]`)
          else attachments.push({ mime, url: `data:${mime};base64,${r.blob}`, filename: r.uri })
        }
        break
      }
    }
  }
  let output = texts.join("\n\n")
  if (!output && result.structuredContent !== undefined) output = JSON.stringify(result.structuredContent, null, 2)
  if (result.isError) throw new Error(output || "The MCP tool reported an error without a message.")
  return { title: base.title, output, metadata: base.metadata, ...(attachments.length ? { attachments } : {}) }
}

function base64Bytes(data: string): number {
  const s = data.replace(/\s/g, "")
  const padding = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor((s.length * 3) / 4) - padding)
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${Math.ceil(n / 1024)} KB`
  return `${Math.ceil(n / (1024 * 1024))} MB`
}

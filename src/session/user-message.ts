import { readdirSync, readFileSync, statSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { Agent } from "../agent"
import type { Part, PartInput, PromptInput, UserMessage } from "../protocol"
import type { Tool } from "../tool"
import { Id } from "../util"
import { fitImage, type ImageLimits } from "./image"
import type { ToolPipeline } from "./tool-call"

export interface UserMessageInput {
  sessionID: string
  agent: Agent
  model: { providerID: string; modelID: string; variant?: string }
  prompt: PromptInput
  /** Runs the read tool (through the tool-call pipeline) on attached text files so their content is inlined. */
  read?: { tool: Tool; toolCalls: ToolPipeline }
  /** Reads an MCP resource mentioned with `@` (a file part whose source is a resource). */
  readResource?: (server: string, uri: string) => Promise<{ text: string; attachments: { mime: string; url: string; filename?: string }[] }>
  /** `attachment.image` of the config: the size attached images are fitted to (image.ts). */
  images?: ImageLimits
}

const INLINE_MEDIA = /^(image\/(png|jpe?g|gif|webp)|application\/pdf)$/

/**
 * Builds the user message and its parts from a prompt. Attached text files and directories
 * are inlined as synthetic text (the output of the read tool), images and PDFs become data
 * URLs, and an `@agent` mention adds the instruction to delegate to that subagent.
 */
export async function buildUserMessage(input: UserMessageInput): Promise<{ info: UserMessage; parts: Part[] }> {
  const { sessionID, prompt } = input
  const info: UserMessage = {
    id: prompt.messageID ?? Id.ascending("msg"),
    sessionID,
    role: "user",
    time: { created: Date.now() },
    agent: input.agent.name,
    model: input.model,
    ...(prompt.format ? { format: prompt.format } : {}),
    ...(prompt.system ? { system: prompt.system } : {}),
    ...(prompt.tools ? { tools: prompt.tools } : {}),
  }
  const parts: Part[] = []
  const base = () => ({ id: Id.ascending("prt"), sessionID, messageID: info.id })
  for (const p of prompt.parts) parts.push(...(await expand(p, base, info.id, input)))
  return { info, parts }
}

async function expand(p: PartInput, base: () => { id: string; sessionID: string; messageID: string }, messageID: string, input: UserMessageInput): Promise<Part[]> {
  switch (p.type) {
    case "text":
      return [{ ...base(), type: "text", text: p.text, ...(p.synthetic ? { synthetic: true } : {}), ...(p.ignored ? { ignored: true } : {}), ...(p.metadata ? { metadata: p.metadata } : {}) }]
    case "agent":
      return [
        { ...base(), type: "agent", name: p.name, ...(p.source ? { source: p.source } : {}) },
        {
          ...base(),
          type: "text",
          synthetic: true,
          text: ` Use the above message and context to generate a prompt and call the task tool with subagent: ${p.name}`,
        },
      ]
    case "subtask":
      return [{ ...base(), type: "subtask", prompt: p.prompt, description: p.description, agent: p.agent, ...(p.model ? { model: p.model } : {}), ...(p.command ? { command: p.command } : {}) }]
    case "file":
      return expandFile(p, base, messageID, input)
  }
}

async function expandFile(
  p: Extract<PartInput, { type: "file" }>,
  base: () => { id: string; sessionID: string; messageID: string },
  messageID: string,
  input: UserMessageInput,
): Promise<Part[]> {
  const filePart = (over: Partial<{ mime: string; url: string }> = {}): Part => ({
    ...base(),
    type: "file",
    mime: over.mime ?? p.mime,
    url: over.url ?? p.url,
    ...(p.filename ? { filename: p.filename } : {}),
    ...(p.source ? { source: p.source } : {}),
  })

  if (p.source?.type === "resource") {
    const { clientName, uri } = p.source
    if (!input.readResource) throw new Error(`Cannot read MCP resource ${uri}: no MCP server "${clientName}" here`)
    const { text, attachments } = await input.readResource(clientName, uri)
    return [
      { ...base(), type: "text", synthetic: true, text: `Reading MCP resource: ${p.filename ?? uri} (${uri}) from ${clientName}` },
      ...(text ? [{ ...base(), type: "text" as const, synthetic: true, text }] : []),
      ...attachments.map((a): Part => ({ ...base(), type: "file", mime: a.mime, url: a.url, ...(a.filename ? { filename: a.filename } : {}) })),
      filePart(),
    ]
  }
  if (p.url.startsWith("data:") && p.mime === "text/plain") {
    const comma = p.url.indexOf(",")
    const payload = p.url.slice(comma + 1)
    const text = /;base64,/.test(p.url.slice(0, comma + 1)) ? Buffer.from(payload, "base64").toString("utf8") : decodeURIComponent(payload)
    return [{ ...base(), type: "text", synthetic: true, text }, filePart()]
  }
  if (/^data:image\/[^;,]+;base64,/.test(p.url)) return fittedImage(Buffer.from(p.url.slice(p.url.indexOf(",") + 1), "base64"), p.mime, p.filename ?? "image", base, filePart, input.images)
  if (!p.url.startsWith("file:")) return [filePart()]

  const file = fileURLToPath(p.url)
  const stat = statSync(file, { throwIfNoEntry: false })
  if (!stat) throw new Error(`Attached file not found: ${file}`)
  if (stat.isDirectory()) {
    const entries = readdirSync(file, { withFileTypes: true })
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort()
    return [
      { ...base(), type: "text", synthetic: true, text: `Called the list tool with the following input: ${JSON.stringify({ path: file })}\n<path>${file}</path>\n<entries>\n${entries.join("\n")}\n</entries>` },
      filePart({ mime: "application/x-directory" }),
    ]
  }
  if (p.mime.startsWith("image/") && INLINE_MEDIA.test(p.mime)) return fittedImage(readFileSync(file), p.mime, p.filename ?? file, base, filePart, input.images)
  if (INLINE_MEDIA.test(p.mime)) {
    const url = `data:${p.mime};base64,${readFileSync(file).toString("base64")}`
    return [filePart({ url })]
  }
  if (!input.read) return [filePart()]
  const args = { filePath: file }
  // The user attached the file: nothing to ask. No tool part: the output is inlined below.
  const result = await input.read.toolCalls.run({
    origin: "mention",
    part: { sessionID: input.sessionID, messageID, callID: "user-attachment", tool: input.read.tool.id },
    tool: input.read.tool,
    input: args,
    agent: "user",
    abort: new AbortController().signal,
    policy: "user",
  })
  if (result.type !== "completed") throw new Error(result.type === "dropped" ? `Could not read ${file}` : result.error)
  return [
    { ...base(), type: "text", synthetic: true, text: `Called the Read tool with the following input: ${JSON.stringify(args)}` },
    { ...base(), type: "text", synthetic: true, text: result.output },
    filePart({ mime: "text/plain" }),
  ]
}


/** An image as a data URL fitted to the limits; a resize or a refusal is told in a note beside it. */
async function fittedImage(
  data: Buffer,
  mime: string,
  name: string,
  base: () => { id: string; sessionID: string; messageID: string },
  filePart: (over?: Partial<{ mime: string; url: string }>) => Part,
  limits: ImageLimits | undefined,
): Promise<Part[]> {
  const fitted = await fitImage(data, mime, limits)
  // A refused image keeps its file part only as a file: URL, which is never sent.
  const kept = (part: Part) => (part.type === "file" && part.url.startsWith("file:") ? [part] : [])
  if (fitted.kind === "refused") return [{ ...base(), type: "text", synthetic: true, text: `[The image ${name} was not attached: ${fitted.why}.]` }, ...kept(filePart())]
  if (fitted.kind === "as-is") return [filePart({ url: `data:${mime};base64,${data.toString("base64")}` })]
  const [[w, h], [w2, h2]] = [fitted.from, fitted.to]
  return [
    { ...base(), type: "text", synthetic: true, text: `[The image ${name} was scaled from ${w}×${h} to ${w2}×${h2} to fit the provider's limits.]` },
    filePart({ mime: fitted.mime, url: `data:${fitted.mime};base64,${fitted.data.toString("base64")}` }),
  ]
}

// Content crossing between an editor and wright: the blocks of an ACP prompt become the
// parts of a wright prompt, and a stored session becomes the updates that replay it.
import path from "node:path"
import { fileURLToPath } from "node:url"
import { RequestError, type ContentBlock, type SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import type { MessageWithParts, PartInput } from "../protocol"
import { UpdateMapper } from "./updates"
import { mimeOf } from "../util"


/**
 * Text stays text; images become inline file parts; a link to a local file becomes a file
 * part (the core reads it as the read tool would); an embedded resource is passed inline.
 */
export function promptParts(blocks: ContentBlock[]): PartInput[] {
  const parts: PartInput[] = []
  blocks.forEach((block, i) => {
    switch (block.type) {
      case "text":
        if (block.text) parts.push({ type: "text", text: block.text })
        return
      case "image":
        parts.push({ type: "file", mime: block.mimeType, url: `data:${block.mimeType};base64,${block.data}`, ...(block.uri ? { filename: nameOf(block.uri) } : {}) })
        return
      case "resource_link": {
        if (block.uri.startsWith("file:")) {
          const file = fileURLToPath(block.uri)
          parts.push({ type: "file", url: block.uri, filename: block.name || path.basename(file), mime: block.mimeType ?? mimeOf(file) ?? "text/plain" })
        } else parts.push({ type: "text", text: `${block.name}: ${block.uri}` })
        return
      }
      case "resource": {
        const r = block.resource
        const name = nameOf(r.uri)
        if ("text" in r) {
          // A text/plain data URL reaches the model as the file's text; say which file it is.
          parts.push({ type: "text", synthetic: true, text: `The user attached ${r.uri}:` })
          parts.push({ type: "file", mime: "text/plain", filename: name, url: `data:text/plain;base64,${Buffer.from(r.text, "utf8").toString("base64")}` })
        } else {
          const mime = r.mimeType ?? mimeOf(name) ?? "text/plain"
          parts.push({ type: "file", mime, filename: name, url: `data:${mime};base64,${r.blob}` })
        }
        return
      }
      default:
        throw RequestError.invalidParams({ index: i, type: block.type }, `prompt[${i}]: ${block.type} content is not supported (send text, images or resources)`)
    }
  })
  if (parts.length === 0) throw RequestError.invalidParams({ field: "prompt" }, "prompt: nothing to send (the prompt has no text, image or resource)")
  return parts
}

function nameOf(uri: string): string {
  try {
    return uri.startsWith("file:") ? path.basename(fileURLToPath(uri)) : path.basename(new URL(uri).pathname) || uri
  } catch {
    return uri
  }
}

/** The updates that show a stored session as if it had just been streamed. */
export function replay(messages: MessageWithParts[], directory: string): SessionUpdate[] {
  const mapper = new UpdateMapper(directory)
  const out: SessionUpdate[] = []
  for (const { info, parts } of messages) {
    if (info.role === "user") {
      for (const part of parts) {
        if (part.type === "text" && !part.synthetic && !part.ignored && part.text) out.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: part.text } })
        if (part.type === "file") out.push({ sessionUpdate: "user_message_chunk", content: fileBlock(part.url, part.mime, part.filename) })
      }
      continue
    }
    out.push(...mapper.map({ type: "message.updated", properties: { sessionID: info.sessionID, info } }))
    for (const part of parts) out.push(...mapper.map({ type: "message.part.updated", properties: { sessionID: info.sessionID, part, time: 0 } }))
  }
  return out
}

function fileBlock(url: string, mime: string, filename: string | undefined): ContentBlock {
  const image = /^data:(image\/[^;,]+);base64,(.*)$/.exec(url)
  if (image) return { type: "image", mimeType: image[1]!, data: image[2]! }
  if (url.startsWith("data:")) return { type: "text", text: `[attached ${filename ?? mime}]` }
  return { type: "resource_link", uri: url, name: filename ?? nameOf(url), mimeType: mime }
}

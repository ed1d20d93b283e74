import type TurndownService from "turndown"
import { lazyModule } from "../util"

const Turndown = lazyModule<typeof TurndownService>("turndown")
import { z } from "zod"
import DESCRIPTION from "./webfetch.txt"
import { defineTool, type ToolResult } from "./tool"

export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024
const DEFAULT_TIMEOUT_S = 30
const MAX_TIMEOUT_S = 120
const TOO_LARGE = "Response too large (exceeds 5MB limit)"
const USER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36"

const ACCEPT = {
  markdown: "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1",
  text: "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
  html: "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1",
} as const

const Parameters = z.object({
  url: z.string().describe("The URL to fetch content from (http:// or https://)"),
  format: z
    .enum(["text", "markdown", "html"])
    .default("markdown")
    .describe("The format to return the content in (text, markdown, or html). Defaults to markdown."),
  timeout: z.number().optional().describe("Optional timeout in seconds (default 30, max 120)"),
})

export const webfetch = defineTool({
  id: "webfetch",
  description: DESCRIPTION,
  parameters: Parameters,
  async execute(args, ctx): Promise<ToolResult> {
    if (!/^https?:\/\//i.test(args.url) || !URL.canParse(args.url))
      throw new Error(`URL must start with http:// or https:// (got "${args.url}")`)
    if (args.timeout !== undefined && !(args.timeout > 0))
      throw new Error(`Invalid timeout value: ${args.timeout}. timeout is a positive number of seconds (max ${MAX_TIMEOUT_S}).`)
    const seconds = Math.min(args.timeout ?? DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S)

    await ctx.ask({
      permission: "webfetch",
      patterns: [args.url],
      always: ["*"],
      metadata: { url: args.url, format: args.format, timeout: seconds },
    })

    const timeout = AbortSignal.timeout(seconds * 1000)
    const signal = AbortSignal.any([ctx.abort, timeout])
    const headers = { "User-Agent": USER_AGENT, Accept: ACCEPT[args.format], "Accept-Language": "en-US,en;q=0.9" }

    let body: Buffer
    let response: Response
    try {
      response = await fetch(args.url, { signal, headers })
      // Cloudflare challenges browser-like agents that fail its fingerprinting; an honest one often passes.
      if (response.status === 403 && response.headers.get("cf-mitigated") === "challenge") {
        await response.body?.cancel()
        response = await fetch(args.url, { signal, headers: { ...headers, "User-Agent": "wright" } })
      }
      if (!response.ok) {
        await response.body?.cancel()
        throw new Error(`Request failed with status code: ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`)
      }
      const length = Number(response.headers.get("content-length"))
      if (length > MAX_RESPONSE_BYTES) {
        await response.body?.cancel()
        throw new Error(TOO_LARGE)
      }
      body = await readCapped(response)
    } catch (e) {
      if (timeout.aborted && !ctx.abort.aborted) throw new Error(`Request timed out after ${seconds} seconds: ${args.url}`)
      if (ctx.abort.aborted) throw new Error(`Fetching ${args.url} was aborted`)
      throw e
    }

    const contentType = response.headers.get("content-type") ?? ""
    const mime = contentType.split(";")[0]!.trim().toLowerCase()
    const title = `${args.url} (${contentType})`
    const metadata = { url: args.url, status: response.status, contentType, bytes: body.length }

    if (mime.startsWith("image/") && mime !== "image/svg+xml") {
      return {
        title,
        output: "Image fetched successfully",
        metadata,
        attachments: [{ mime, url: `data:${mime};base64,${body.toString("base64")}` }],
      }
    }

    const text = decode(body, contentType)
    const html = mime === "text/html" || mime === "application/xhtml+xml"
    let output = text
    if (html && args.format === "markdown") output = htmlToMarkdown(text)
    if (html && args.format === "text") output = htmlToText(text)
    return { title, output, metadata }
  },
})

async function readCapped(response: Response): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0)
  const reader = response.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel()
      throw new Error(TOO_LARGE)
    }
    parts.push(value)
  }
  return Buffer.concat(parts)
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1]
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body)
  } catch {
    return new TextDecoder("utf-8").decode(body)
  }
}

const DROPPED = ["script", "style", "noscript", "iframe", "object", "embed"]

export function htmlToMarkdown(html: string): string {
  const service = new (Turndown())({
    headingStyle: "atx",
    hr: "---",
    bulletListMarker: "-",
    codeBlockStyle: "fenced",
    emDelimiter: "*",
  })
  service.remove([...DROPPED, "meta", "link", "head"] as TurndownService.Filter)
  return service.turndown(html).trim()
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " }

export function htmlToText(html: string): string {
  const stripped = html
    .replace(new RegExp(`<(${DROPPED.join("|")}|head)\\b[\\s\\S]*?<\\/\\1\\s*>`, "gi"), "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|h[1-6]|li|tr|pre|blockquote|section|article|header|footer|table|ul|ol)\s*>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
      if (name[0] === "#") {
        const code = name[1]?.toLowerCase() === "x" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
        return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole
      }
      return ENTITIES[name.toLowerCase()] ?? whole
    })
  return stripped
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
}

// webfetch: GET a URL and return it as Markdown, text, HTML or an image attachment.
// Redirects are followed by hand so each hop meets the rules; loopback, private, link-local
// and metadata addresses need a rule naming the host, judged on the URL and again on the
// address the connection is made to (web-request.ts).
import net from "node:net"
import type TurndownService from "turndown"
import { z } from "zod"
import { PermissionDeniedError } from "../protocol"
import { lazyModule } from "../util"
import DESCRIPTION from "./webfetch.txt"
import { type AskRequest, type ToolContext, defineTool, type ToolResult } from "./tool"
import { hostKind } from "./web-address"
import { oneLine, textOf } from "./summary"
import { AddressRefusedError, firstRefused, get, type Lookup, systemLookup, type WebResponse } from "./web-request"

const Turndown = lazyModule<typeof TurndownService>("turndown")

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

const MAX_REDIRECTS = 10
const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** `lookup` resolves host names (the system resolver unless a test gives one). */
export function createWebfetch(deps: { lookup?: Lookup } = {}) {
  const lookup = deps.lookup ?? systemLookup
  return defineTool({
    id: "webfetch",
    description: DESCRIPTION,
    parameters: Parameters,
    summary(input) {
      const url = textOf(input.url)
      return { title: url ? `Fetch ${oneLine(url, 200)}` : "Fetch", kind: "fetch", locations: [] }
    },
    async execute(args, ctx): Promise<ToolResult> {
      let url = parseUrl(args.url)
      if (args.timeout !== undefined && !(args.timeout > 0))
        throw new Error(`Invalid timeout value: ${args.timeout}. timeout is a positive number of seconds (max ${MAX_TIMEOUT_S}).`)
      const seconds = Math.min(args.timeout ?? DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S)
      const headers = { "User-Agent": USER_AGENT, Accept: ACCEPT[args.format], "Accept-Language": "en-US,en;q=0.9" }

      // Redirects are followed here, one hop at a time, so every URL meets the rules and the address checks.
      let from: string | undefined
      for (let hop = 0; ; hop++) {
        const allowPrivate = await admit(ctx, url, lookup, { format: args.format, timeout: seconds, ...(from ? { redirectedFrom: from } : {}) })
        const timeout = AbortSignal.timeout(seconds * 1000)
        const signal = AbortSignal.any([ctx.abort, timeout])
        try {
          let response = await get(url, { headers, signal, lookup, allowPrivate })
          // Cloudflare challenges browser-like agents that fail its fingerprinting; an honest one often passes.
          if (response.status === 403 && response.headers["cf-mitigated"] === "challenge") {
            response.cancel()
            response = await get(url, { headers: { ...headers, "User-Agent": "wright" }, signal, lookup, allowPrivate })
          }
          const location = response.headers.location
          if (REDIRECTS.has(response.status) && location) {
            response.cancel()
            if (hop === MAX_REDIRECTS) throw new Error(`Stopped after more than ${MAX_REDIRECTS} redirects (last at ${url.href}). Fetch the final URL directly.`)
            from = url.href
            url = redirectTarget(url, location)
            continue
          }
          return await finish(url, response, args.format)
        } catch (e) {
          if (e instanceof AddressRefusedError) throw refusal(url, e.message)
          if (timeout.aborted && !ctx.abort.aborted) throw new Error(`Request timed out after ${seconds} seconds: ${url.href}`)
          if (ctx.abort.aborted) throw new Error(`Fetching ${url.href} was aborted`)
          throw e
        }
      }
    },
  })
}

export const webfetch = createWebfetch()

function parseUrl(text: string): URL {
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) throw new Error(`URL must start with http:// or https:// (got "${text}")`)
  const url = new URL(text)
  if (url.username || url.password)
    throw new Error(`URL must not carry a user name or password (got "${text}"). Ask the user for another way to authenticate.`)
  return url
}

function redirectTarget(from: URL, location: string): URL {
  const next = URL.canParse(location, from) ? new URL(location, from) : undefined
  if (!next || (next.protocol !== "http:" && next.protocol !== "https:"))
    throw new Error(`${from.href} redirects to "${location}", which is not an http:// or https:// URL; webfetch does not follow it.`)
  return parseUrl(next.href)
}

/**
 * Asks the rules about one hop. A host that is, or resolves to, a loopback, private,
 * link-local or metadata address is let through only by a rule that names it; the answer
 * says whether the connection may then reach such an address.
 */
async function admit(ctx: ToolContext, url: URL, lookup: Lookup, extra: Record<string, unknown>): Promise<boolean> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
  const ask: AskRequest = { permission: "webfetch", patterns: [url.href], always: ["*"], metadata: { url: url.href, ...extra } }
  const known = hostKind(host)
  if (known) return askNamed(ctx, url, ask, `${host} is a ${known} ${net.isIP(host) ? "address" : "name"}`)
  await ctx.ask(ask)
  if (net.isIP(host)) return false
  // Resolved after the ask, so a URL the user refuses does not even reach DNS. The
  // connection resolves again and checks again: this answer only decides what to ask.
  const resolved = firstRefused(await abortable(lookup(host), ctx.abort).catch(() => []))
  if (!resolved) return false
  return askNamed(ctx, url, ask, `${host} resolves to ${resolved.address}, a ${resolved.kind} address`)
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason)
    if (signal.aborted) return stop()
    signal.addEventListener("abort", stop, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop))
  })
}

async function askNamed(ctx: ToolContext, url: URL, ask: AskRequest, what: string): Promise<true> {
  try {
    await ctx.ask({ ...ask, always: [`${url.origin}/*`], named: true, metadata: { ...ask.metadata, refused: what } })
  } catch (e) {
    // No rule names the host (a rule that denies it is reported as any deny is).
    if (PermissionDeniedError.is(e) && e.data.rules?.length === 0) throw refusal(url, what)
    throw e
  }
  return true
}

function refusal(url: URL, what: string): Error {
  return new Error(
    `webfetch refused ${url.href}: ${what}. Loopback, private, link-local and cloud metadata addresses are fetched only ` +
      `when a permission rule names the host (a "*" rule does not count). The user can allow this one with ` +
      `"permission": {"webfetch": {${JSON.stringify(`${url.origin}/*`)}: "allow"}}.`,
  )
}

async function finish(url: URL, response: WebResponse, format: "text" | "markdown" | "html"): Promise<ToolResult> {
  if (response.status < 200 || response.status > 299) {
    response.cancel()
    throw new Error(`Request failed with status code: ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`)
  }
  const length = Number(response.headers["content-length"])
  if (length > MAX_RESPONSE_BYTES) {
    response.cancel()
    throw new Error(TOO_LARGE)
  }
  const body = await readCapped(response)
  const contentType = String(response.headers["content-type"] ?? "")
  const mime = contentType.split(";")[0]!.trim().toLowerCase()
  const title = `${url.href} (${contentType})`
  const metadata = { url: url.href, status: response.status, contentType, bytes: body.length }

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
  if (html && format === "markdown") output = htmlToMarkdown(text)
  if (html && format === "text") output = htmlToText(text)
  return { title, output, metadata }
}

async function readCapped(response: WebResponse): Promise<Buffer> {
  const parts: Buffer[] = []
  let size = 0
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_RESPONSE_BYTES) {
      response.cancel()
      throw new Error(TOO_LARGE)
    }
    parts.push(chunk)
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

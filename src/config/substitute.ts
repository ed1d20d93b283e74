import { readFileSync, statSync } from "node:fs"
import path from "node:path"
import { getLocation } from "jsonc-parser"
import { ConfigError } from "./error"
import { formatPath } from "./issues"

export interface SubstituteContext {
  /** Path or name of the source, for errors. */
  label: string
  /** Directory that relative `{file:}` paths are resolved against. */
  dir: string
  env: NodeJS.ProcessEnv
  home: string
  /**
   * Whether a token may resolve (an untrusted project's config may read neither the
   * environment nor files outside the project). A refused token becomes "" and is listed.
   * Undefined: every token resolves.
   */
  allow?(kind: "env" | "file", target: string): boolean
}

export interface Token {
  kind: "env" | "file"
  /** As written: the variable name, or the file path. */
  name: string
  /** Where it stands in the config (JSON path), e.g. ["mcp", "x", "headers", "Authorization"]. */
  at: (string | number)[]
  /** False when `allow` refused it. */
  resolved: boolean
}

export interface Substituted {
  text: string
  /** Maps an offset in `text` back to the offset in the original text. */
  originalOffset(offset: number): number
  /** Every token met, in order: secrets to redact, or refusals to report. */
  tokens: Token[]
}

const TOKEN = /\{(env|file):([^}\n]+)\}/y

/**
 * Replaces `{env:VAR}` and `{file:path}` in raw config text. Inside a JSON string the
 * value is JSON-escaped, so a key file with quotes or newlines stays one string; outside
 * a string it is inserted as written (e.g. a number). Tokens in comments are left alone.
 */
export function substitute(text: string, ctx: SubstituteContext): Substituted {
  const spans: { outStart: number; outEnd: number; inStart: number; inEnd: number }[] = []
  const tokens: Token[] = []
  const identity = { text, originalOffset: (offset: number) => offset, tokens }
  if (!text.includes("{env:") && !text.includes("{file:")) return identity

  let out = ""
  let state: "code" | "string" | "line" | "block" = "code"
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    const next = text[i + 1]
    if (state === "line") {
      if (c === "\n") state = "code"
    } else if (state === "block") {
      if (c === "*" && next === "/") {
        out += "*/"
        i++
        state = "code"
        continue
      }
    } else if (c === "{") {
      TOKEN.lastIndex = i
      const match = TOKEN.exec(text)
      if (match) {
        const kind = match[1] as "env" | "file"
        const token: Token = { kind, name: match[2]!.trim(), at: getLocation(text, i).path, resolved: true }
        tokens.push(token)
        const raw = resolve(token, text, i, ctx)
        const value = state === "string" ? JSON.stringify(raw).slice(1, -1) : raw
        spans.push({ outStart: out.length, outEnd: out.length + value.length, inStart: i, inEnd: i + match[0].length })
        out += value
        i += match[0].length - 1
        continue
      }
    } else if (state === "string") {
      if (c === "\\") {
        out += c + (next ?? "")
        i++
        continue
      }
      if (c === '"') state = "code"
    } else if (c === '"') {
      state = "string"
    } else if (c === "/" && next === "/") {
      state = "line"
    } else if (c === "/" && next === "*") {
      out += "/*"
      i++
      state = "block"
      continue
    }
    out += c
  }

  return {
    text: out,
    tokens,
    originalOffset(offset) {
      const span = spans.findLast((s) => s.outStart <= offset)
      if (!span) return offset
      return offset < span.outEnd ? span.inStart : span.inEnd + (offset - span.outEnd)
    },
  }
}

function refuse(token: Token): string {
  token.resolved = false
  return ""
}

function resolve(token: Token, text: string, offset: number, ctx: SubstituteContext): string {
  const { kind, name } = token
  if (kind === "env") {
    if (ctx.allow && !ctx.allow("env", name)) return refuse(token)
    return ctx.env[name] ?? ""
  }
  let target = name
  if (target === "~" || target.startsWith("~/")) target = path.join(ctx.home, target.slice(1))
  const resolved = path.resolve(ctx.dir, target)
  if (ctx.allow && !ctx.allow("file", resolved)) return refuse(token)
  try {
    if (statSync(resolved).isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" })
    return readFileSync(resolved, "utf8").trim()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const problem = code === "ENOENT" ? "does not exist" : code === "EISDIR" ? "is a directory" : "cannot be read"
    const where = formatPath(getLocation(text, offset).path)
    throw new ConfigError(ctx.label, [{ path: where, message: `{file:${name}}: ${resolved} ${problem}` }], { cause: error })
  }
}

// What leaves the process of a config: credentials never do. Values that came from
// `{env:}`/`{file:}`, API keys and tokens, auth-like headers and MCP servers' environment
// are replaced by a marker, so `GET /config` shows the shape of the setup and none of its secrets.
import type { Config } from "./schema"

export const REDACTED = "[redacted]"

const SECRET_KEY = /^(api[-_]?key|apikey|key|token|access[-_]?token|refresh[-_]?token|id[-_]?token|secret|client[-_]?secret|password|passphrase|credentials?|auth|authorization|private[-_]?key|session[-_]?token)$/i
const SECRET_HEADER = /auth|token|key|secret|cookie|session|signature|credential/i

/** A deep copy of `config` without its secrets; `secrets` are the paths that came from `{env:}`/`{file:}`. */
export function redactConfig(config: Config, secrets: (string | number)[][] = []): Config {
  const marked = new Set(secrets.map((p) => p.map(String).join("\0")))
  const walk = (value: unknown, at: string[], parent: string | undefined): unknown => {
    const key = at[at.length - 1]
    if (marked.has(at.join("\0"))) return typeof value === "string" || typeof value === "number" ? REDACTED : redactAll(value)
    if (typeof value === "string") {
      if (key !== undefined && SECRET_KEY.test(key)) return REDACTED
      if (parent === "headers" && key !== undefined && SECRET_HEADER.test(key)) return REDACTED
      if (parent === "environment" || parent === "env") return at[0] === "mcp" ? REDACTED : value
      return value
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, [...at, String(i)], key))
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, [...at, k], key)]))
    }
    return value
  }
  return walk(config, [], undefined) as Config
}

function redactAll(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactAll)
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactAll(v)]))
  return typeof value === "string" ? REDACTED : value
}

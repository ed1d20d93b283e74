import type { z } from "zod"

export interface ConfigIssue {
  /** Dotted key path (`provider.local.options.baseURL`), `line:column` for syntax errors, "" for the whole file. */
  path: string
  message: string
}

type Key = PropertyKey
type Issue = z.core.$ZodIssue

/** `provider.local.models["gpt-4.1"].limit`, `instructions[2]`. */
export function formatPath(path: readonly Key[]): string {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else if (/^[\w$-]+$/.test(String(key))) out += out ? `.${String(key)}` : String(key)
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out
}

function valueAt(root: unknown, path: readonly Key[]): { found: boolean; value: unknown } {
  let value = root
  for (const key of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return { found: false, value }
    value = (value as Record<Key, unknown>)[key]
  }
  return { found: true, value }
}

function typeName(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  return typeof value
}

function showValue(value: unknown): string {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return JSON.stringify(value)
  return typeName(value)
}

const TYPE_NAMES: Record<string, string> = { record: "object", int: "integer" }

/** What one failing union branch wanted, in a few words. */
function expectation(issue: Issue): string {
  if (issue.code === "invalid_type") return TYPE_NAMES[issue.expected] ?? issue.expected
  if (issue.code === "invalid_value") return issue.values.map((v) => JSON.stringify(v)).join("|")
  if (issue.code === "unrecognized_keys") return "object"
  return issue.message
}

function describe(issue: Issue, root: unknown, full: Key[]): string {
  const { found, value } = valueAt(root, full)
  const received = found ? (issue.code === "invalid_type" ? typeName(value) : showValue(value)) : ""
  const tail = (expected: string) => (found ? `expected ${expected}, received ${received}` : `missing (expected ${expected})`)
  switch (issue.code) {
    case "invalid_type":
      // "expected integer, received number" would read as nonsense; show the number instead.
      if (found && typeof value === "number" && issue.expected === "int") return `expected integer, received ${value}`
      return tail(TYPE_NAMES[issue.expected] ?? issue.expected)
    case "invalid_value":
      return tail(issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${expectation(issue)}`)
    case "too_small":
    case "too_big":
      return `${issue.message.replace(/^Too (small|big): /, "")}${found ? `, received ${received}` : ""}`
    case "unrecognized_keys":
      return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`
    default:
      return issue.message
  }
}

/**
 * How far a failing union branch got into the value: deeper paths to values that exist
 * mean the user clearly meant that branch. A strict branch that rejects keys scores low.
 */
function branchScore(branch: Issue[], root: unknown, base: Key[]): number {
  let best = -1
  for (const issue of branch) {
    const full = [...base, ...issue.path]
    let score = issue.path.length + (valueAt(root, full).found ? 0.5 : 0)
    if (issue.code === "unrecognized_keys") score -= 1
    best = Math.max(best, score)
  }
  return best
}

function flatten(issue: Issue, root: unknown, base: Key[]): ConfigIssue[] {
  const full = [...base, ...issue.path]
  if (issue.code === "invalid_union" && issue.errors.length === 0 && "options" in issue) {
    const options = (issue as { options: unknown[] }).options
    const fake = { code: "invalid_value", values: options, path: [], message: issue.message } as unknown as Issue
    return [{ path: formatPath(full), message: describe(fake, root, full) }]
  }
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const scored = issue.errors.map((branch) => ({ branch, score: branchScore(branch, root, full) }))
    const best = scored.reduce((a, b) => (b.score > a.score ? b : a))
    if (best.score >= 1) return best.branch.flatMap((inner) => flatten(inner, root, full))
    const wanted = [...new Set(issue.errors.map((branch) => expectation(branch[0]!)))].join(" or ")
    const { found, value } = valueAt(root, full)
    const message = found ? `expected ${wanted}, received ${showValue(value)}` : `missing (expected ${wanted})`
    return [{ path: formatPath(full), message }]
  }
  return [{ path: formatPath(full), message: describe(issue, root, full) }]
}

/** Every zod issue as a key path and a sentence, unions resolved to the branch the user meant. */
export function issuesFromZod(error: z.ZodError, input: unknown): ConfigIssue[] {
  return error.issues.flatMap((issue) => flatten(issue, input, []))
}

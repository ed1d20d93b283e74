import type { z } from "zod"
import { declareError } from "../protocol"
import { type ConfigIssue, issuesFromZod } from "./issues"

/**
 * Any problem with configuration. `file` is the file's absolute path, or the name of the
 * source when it is not a file (`WRIGHT_CONFIG_CONTENT`, `overrides`). The message lists
 * every issue with its key path: `Invalid config in /p/wright.json: model: expected string, received number`.
 */
export class ConfigError extends Error {
  static readonly info = declareError("ConfigError", { status: 400, quiet: true })
  override readonly name = "ConfigError"
  readonly file?: string
  readonly issues: ConfigIssue[]

  constructor(file: string | undefined, issues: ConfigIssue[], options?: { cause?: unknown }) {
    super(formatMessage(file, issues), options)
    this.file = file
    this.issues = issues
  }

  /** Wraps a failed zod parse of `input` (the value that was parsed, used to say what was received). */
  static fromZod(file: string | undefined, error: z.ZodError, input: unknown): ConfigError {
    return new ConfigError(file, issuesFromZod(error, input), { cause: error })
  }
}

function formatMessage(file: string | undefined, issues: ConfigIssue[]): string {
  const head = file ? `Invalid config in ${file}` : "Invalid config"
  const lines = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
  if (lines.length === 0) return head
  if (lines.length === 1) return `${head}: ${lines[0]}`
  return `${head}:\n${lines.map((line) => `  ${line}`).join("\n")}`
}

// Turns a command template and the user's argument string into prompt parts: arguments are
// substituted, `` !`cmd` `` snippets replaced by their output, `@path` / `@agent` mentions
// resolved into file and agent parts, and the subtask decision taken. No I/O beyond stat and
// the snippets; the caller sends the result.
import { statSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import type { Exec, Sandbox } from "../process"
import { parseModelRef, type PartInput } from "../protocol"
import { mimeOf } from "../util"
import { runSnippet } from "./command-shell"

export interface CommandInfo {
  name: string
  description?: string
  template: string
  agent?: string
  /** "provider/model" */
  model?: string
  variant?: string
  subtask?: boolean
  source: "config" | "markdown" | "builtin" | "mcp"
  /** An MCP prompt: its text comes from the server when the command runs, with these arguments in order. */
  mcp?: { server: string; prompt: string; arguments: { name: string; required?: boolean }[] }
}

export interface ExpandedCommand {
  parts: PartInput[]
  agent?: string
  model?: { providerID: string; modelID: string }
  subtask: boolean
}

export interface ExpandContext {
  directory: string
  worktree: string
  /** The shell for `` !`cmd` `` snippets (config `shell`); /bin/bash or sh when unset. */
  shell?: string
  /** The App's spawner: every snippet runs through it. */
  exec: Exec
  /** The App's sandbox: snippets run inside it. */
  sandbox?: Sandbox
  agentMode: (name: string) => "primary" | "subagent" | "all" | undefined
  signal?: AbortSignal
  /** The agent the caller asked for, used when the command names none. */
  agent?: string
  /** The model a subtask runs with when the command names none. */
  model?: { providerID: string; modelID: string }
  /** For `@~/path`; defaults to the OS home. */
  home?: string
}

const PLACEHOLDER = /\$(ARGUMENTS|[1-9]\d*)/g
const SNIPPET = /!`([^`]+)`/g
// `@path` not preceded by a word character or backtick (so e-mail addresses and `@code` stay
// text); dots inside the path are kept, a sentence's closing period is not.
const REFERENCE = /(?<![\w`])@(\.?[^\s`,.]*(?:\.[^\s`,.]+)*)/g

/**
 * Splits an argument string like a shell would for the simple cases: words separated by
 * whitespace, a quoted string ("…" or '…') is one argument without its quotes, `[Image N]`
 * stays whole. A quote that is never closed (`don't`) is an ordinary character.
 */
export function splitArguments(args: string): string[] {
  const out: string[] = []
  let i = 0
  while (i < args.length) {
    if (/\s/.test(args[i]!)) {
      i++
      continue
    }
    const image = /^\[Image\s+\d+\]/.exec(args.slice(i))
    if (image) {
      out.push(image[0])
      i += image[0].length
      continue
    }
    const quote = args[i]!
    if (quote === '"' || quote === "'") {
      const close = closingQuote(args, i + 1, quote)
      if (close !== -1) {
        out.push(args.slice(i + 1, close))
        i = close + 1
        continue
      }
    }
    let j = i
    while (j < args.length && !/\s/.test(args[j]!)) j++
    out.push(args.slice(i, j))
    i = j
  }
  return out
}

/** The next `quote` that ends a word (followed by whitespace or the end), or -1. */
function closingQuote(text: string, from: number, quote: string): number {
  for (let k = from; k < text.length; k++) {
    if (text[k] === quote && (k + 1 === text.length || /\s/.test(text[k + 1]!))) return k
  }
  return -1
}

/**
 * `$1…$N` take the arguments in order and the highest-numbered placeholder takes all the rest;
 * `$ARGUMENTS` is the whole argument string. One pass, so an argument that itself contains
 * `$1` is not substituted again. Without any placeholder the arguments follow a blank line.
 */
export function substituteArguments(template: string, args: string): string {
  const list = splitArguments(args)
  let last = 0
  let any = false
  for (const m of template.matchAll(PLACEHOLDER)) {
    any = true
    if (m[1] !== "ARGUMENTS") last = Math.max(last, Number(m[1]))
  }
  if (!any) return args.trim() ? `${template}\n\n${args}` : template
  return template.replace(PLACEHOLDER, (_, key: string) => {
    if (key === "ARGUMENTS") return args
    const index = Number(key) - 1
    if (index >= list.length) return ""
    return Number(key) === last ? list.slice(index).join(" ") : list[index]!
  })
}

export async function expandCommand(cmd: CommandInfo, args: string, ctx: ExpandContext): Promise<ExpandedCommand> {
  const withArgs = substituteArguments(cmd.template, args)
  // Mentions are read before snippets run: a snippet's output is data, not a request to attach files.
  const references = withArgs.replace(SNIPPET, (m) => " ".repeat(m.length))
  const snippets = [...withArgs.matchAll(SNIPPET)].map((m) => m[1]!)
  const outputs = await Promise.all(snippets.map((c) => runSnippet(c, { exec: ctx.exec, sandbox: ctx.sandbox, cwd: ctx.directory, shell: ctx.shell, signal: ctx.signal })))
  let n = 0
  const text = withArgs.replace(SNIPPET, () => outputs[n++]!).trim()

  const agent = cmd.agent ?? ctx.agent
  const model = cmd.model ? parseModelRef(cmd.model) : undefined
  const mode = agent ? ctx.agentMode(agent) : undefined
  const subtask = cmd.subtask === true || (mode === "subagent" && cmd.subtask !== false)
  if (subtask) {
    const taskModel = model ?? ctx.model
    return {
      parts: [
        {
          type: "subtask",
          prompt: text,
          description: cmd.description ?? cmd.name,
          agent: agent ?? "general",
          ...(taskModel ? { model: taskModel } : {}),
          command: cmd.name,
        },
      ],
      ...(agent ? { agent } : {}),
      ...(model ? { model } : {}),
      subtask: true,
    }
  }
  return {
    parts: [{ type: "text", text }, ...resolveReferences(references, ctx)],
    ...(agent ? { agent } : {}),
    ...(model ? { model } : {}),
    subtask: false,
  }
}

/** `@path` that exists (directory first, then worktree) → file part; `@name` of an agent → agent part. */
export function resolveReferences(text: string, ctx: Pick<ExpandContext, "directory" | "worktree" | "agentMode" | "home">): PartInput[] {
  const parts: PartInput[] = []
  const seen = new Set<string>()
  for (const m of text.matchAll(REFERENCE)) {
    const name = m[1]!
    if (!name || seen.has(name)) continue
    seen.add(name)
    const file = locate(name, ctx)
    if (file) {
      const isDir = file.stat.isDirectory()
      parts.push({
        type: "file",
        url: pathToFileURL(file.path).href,
        filename: name,
        mime: isDir ? "application/x-directory" : (mimeOf(file.path) ?? "text/plain"),
      })
      continue
    }
    // A primary agent cannot be delegated to, so only subagents (and "all") become parts.
    const mode = ctx.agentMode(name)
    if (mode && mode !== "primary") parts.push({ type: "agent", name })
  }
  return parts
}

function locate(name: string, ctx: Pick<ExpandContext, "directory" | "worktree" | "home">) {
  const candidates = name.startsWith("~/")
    ? [path.join(ctx.home ?? os.homedir(), name.slice(2))]
    : [path.resolve(ctx.directory, name), path.resolve(ctx.worktree, name)]
  for (const candidate of candidates) {
    const stat = statSync(candidate, { throwIfNoEntry: false })
    if (stat) return { path: candidate, stat }
  }
  return undefined
}


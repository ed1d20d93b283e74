import { statSync } from "node:fs"
import path from "node:path"
import { z } from "zod"
import { analyzeBash, externalDirectoryAsk } from "../permission"
import type { Sandbox } from "../process"
import { Id } from "../util"
import DESCRIPTION from "./bash.txt"
import { shapeShellOutput } from "./shell-output"
import { runShell } from "./shell-run"
import { sandboxEscape } from "./shell-sandbox"
import { oneLine, projectPath, textOf } from "./summary"
import { defineTool, type ToolContext } from "./tool"

export const DEFAULT_TIMEOUT_MS = 120_000
const PREVIEW_CHARS = 30_000
const PREVIEW_INTERVAL_MS = 100

const Parameters = z.object({
  command: z.string().describe("The command to execute"),
  timeout: z.number().int().optional().describe("Optional timeout in milliseconds (default 120000, i.e. 2 minutes)"),
  workdir: z
    .string()
    .optional()
    .describe("The directory to run the command in, absolute or relative to the project directory. Use this instead of `cd <dir> && ...`."),
  description: z
    .string()
    .optional()
    .describe(
      "What this command does, in 5-10 words. Examples:\nls -> Lists files in current directory\ngit status -> Shows working tree status\nnpm install -> Installs package dependencies",
    ),
})

function defaultTimeout(): number {
  const env = Number(process.env.WRIGHT_BASH_DEFAULT_TIMEOUT_MS)
  return Number.isInteger(env) && env > 0 ? env : DEFAULT_TIMEOUT_MS
}

function resolveWorkdir(workdir: string | undefined, ctx: ToolContext): string {
  const dir = path.resolve(ctx.directory, workdir ?? ".")
  let isDir: boolean
  try {
    isDir = statSync(dir).isDirectory()
  } catch {
    throw new Error(`workdir does not exist: ${dir}. Pass an existing directory, or omit workdir to run in ${ctx.directory}.`)
  }
  if (!isDir) throw new Error(`workdir is not a directory: ${dir}`)
  return dir
}

export const bash = defineTool({
  id: "bash",
  description: DESCRIPTION,
  parameters: Parameters,
  // The command itself, not the model's description of it: a person approving or reading
  // back a call should see what ran. A command that ran and failed is a completed call (the
  // model reads its output) that front ends must not show as passed.
  summary(input, state, project) {
    const command = textOf(input.command)
    const workdir = textOf(input.workdir)
    const meta = state.status === "completed" ? state.metadata : undefined
    const failed = typeof meta?.exit === "number" && meta.exit !== 0 ? `exit ${meta.exit}` : typeof meta?.signal === "string" ? `killed by ${meta.signal}` : undefined
    return {
      title: command ? `$ ${oneLine(command)}` : "$",
      kind: "execute",
      locations: workdir ? [{ path: projectPath(workdir, project) }] : [],
      ...(failed ? { failed } : {}),
    }
  },
  async execute(args, ctx) {
    if (args.timeout !== undefined && args.timeout <= 0)
      throw new Error(`Invalid timeout value: ${args.timeout}. timeout must be a positive number of milliseconds.`)
    const timeout = args.timeout ?? defaultTimeout()
    const cwd = resolveWorkdir(args.workdir, ctx)
    const title = args.description || args.command

    if (args.workdir !== undefined) {
      const outside = externalDirectoryAsk(cwd, { cwd: ctx.directory, project: ctx.directory, isDir: true })
      if (outside) await ctx.ask(outside)
    }
    const written = ctx.services.written
    let writes: string[] = []
    const requests = await analyzeBash(args.command, {
      cwd,
      project: ctx.directory,
      worktree: ctx.worktree,
      written: written && ((p) => written.has(p)),
      onWrites: (paths) => (writes = paths),
    })
    for (const req of requests) await ctx.ask(req)
    written?.add(writes)
    if (ctx.abort.aborted) throw new Error("The command was not run: the call was aborted.")

    let preview = ""
    let timer: NodeJS.Timeout | undefined
    let last = 0
    const publish = () => {
      timer = undefined
      last = Date.now()
      ctx.metadata({ title, metadata: { output: preview, description: args.description } })
    }
    publish()

    const runIn = (sandbox: Sandbox | "off" | undefined) =>
      runShell({
        exec: ctx.services.exec,
        sandbox,
        command: args.command,
        cwd,
        timeout,
        signal: ctx.abort,
        keepBytes: 2 * ctx.limits.maxBytes,
        spillPath: () => path.join(ctx.outputDir, Id.ascending("tool")),
        env: { TERM: "dumb", PAGER: "cat", GIT_PAGER: "cat" },
        onOutput(text) {
          preview = (preview + text).slice(-PREVIEW_CHARS)
          timer ??= setTimeout(publish, Math.max(0, PREVIEW_INTERVAL_MS - (Date.now() - last)))
        },
      }).finally(() => clearTimeout(timer))

    // The files the command changes get diagnostics, like a write's (the snapshot store names them).
    const changes = await ctx.services.commandChanges?.begin(ctx.sessionID)
    let run = await runIn(ctx.services.sandbox)
    const escape = await sandboxEscape(args.command, run, ctx)
    if (escape?.rerun) {
      preview = ""
      run = await runIn("off")
    }
    const shaped = shapeShellOutput(run, ctx, timeout, escape?.note)
    const diagnostics = (await changes?.end()) ?? ""
    return {
      title,
      output: shaped.output + diagnostics,
      metadata: {
        output: preview,
        exit: run.exit,
        signal: run.signal,
        truncated: shaped.truncated,
        ...(shaped.outputPath ? { outputPath: shaped.outputPath } : {}),
        description: args.description,
        ...(escape ? { sandbox: escape.rerun ? "escaped" : "blocked" } : {}),
      },
    }
  },
})

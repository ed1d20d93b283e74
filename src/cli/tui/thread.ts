// `wright [project]`: the main thread renders, a worker thread hosts the core. The worker is
// started first so it boots while the UI draws its first frame; fetches and events cross over
// RPC, and no port is opened unless --port/--hostname ask for one. Quitting shuts the worker
// down (running sessions are settled) and restores the terminal, also after a crash.
import { existsSync, statSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import { createClient, type Client } from "../../sdk"
import { createRpcClient, preloadTui, runTui, tuiConfigPaths } from "../../tui"
import type { ListenerArgs } from "../args"
import type { LogArgs } from "../log"
import { listenerAuth } from "../password"
import { UserError } from "../ui"
import { editText } from "./editor"
import { holdTypeAhead, parseModelFlag, modelPrefs, promptHistory, requireTerminal, restoreTerminal, writeExport } from "./terminal"
import type { ListenRequest, WorkerInit } from "./worker"

export interface TuiArgs extends ListenerArgs, LogArgs {
  project?: string
  model?: string
  /** The model variant prompts start with (ctrl+t cycles). */
  variant?: string
  agent?: string
  continue?: boolean
  session?: string
  prompt?: string
  port?: number
  hostname?: string
  /** -w [name]: open the UI in a new git worktree on branch wright/<name> ("": a generated name). */
  worktree?: string
}

function workerEntry(): { url: URL; execArgv?: string[] } {
  for (const rel of ["./tui-worker.mjs", "../tui-worker.mjs"]) {
    const url = new URL(rel, import.meta.url)
    if (existsSync(fileURLToPath(url))) return { url }
  }
  // From source (tsx): the worker needs the same loader.
  return { url: new URL("./worker.ts", import.meta.url), execArgv: [...process.execArgv, "--import", "tsx"] }
}

export async function tui(args: TuiArgs) {
  const directory = path.resolve(process.cwd(), args.project ?? ".")
  if (!existsSync(directory) || !statSync(directory).isDirectory()) throw new UserError(`project: not a directory: ${directory}`)
  const model = await parseModelFlag(args.model)
  requireTerminal()
  if (args.worktree === undefined) return tuiIn(args, directory, model)
  if (args.session || args.continue) throw new UserError("-w: a worktree starts a new session; drop --session/--continue")
  const worktrees = await import("../worktree/execute")
  const made = await worktrees.openWorktree(directory, args.worktree || true)
  try {
    await tuiIn(args, made.path, model)
  } finally {
    // Quit (or failed) before anything was done there: no empty worktree is left behind.
    await worktrees.dropUnusedWorktree(made)
  }
}

async function tuiIn(args: TuiArgs, directory: string, model: Awaited<ReturnType<typeof parseModelFlag>>) {
  // The port's password comes before the UI: a prompt needs the terminal to itself.
  const serving = args.port !== undefined || args.hostname !== undefined || args.mdns === true
  const auth: { password?: string; username?: string } = serving ? await listenerAuth(args, process.env) : {}
  holdTypeAhead()

  const entry = workerEntry()
  const init: WorkerInit = { directory, allowDirs: args.allowDir?.map((d) => path.resolve(d)), printLogs: args.printLogs, logLevel: args.logLevel }
  const worker = new Worker(entry.url, { workerData: init, stdout: true, stderr: true, execArgv: entry.execArgv })
  const logs: string[] = []
  const keep = (d: Buffer) => {
    logs.push(d.toString())
    if (logs.length > 200) logs.shift()
  }
  worker.stdout.on("data", keep)
  worker.stderr.on("data", keep)
  // --print-logs: the core's log lines (its stderr) reach ours, e.g. for `wright --print-logs 2>wright.log`.
  if (args.printLogs) worker.stderr.on("data", (d: Buffer) => process.stderr.write(d))
  const rpc = createRpcClient(worker)
  // -c, -s and --port wait for the core below: the UI's modules load meanwhile.
  preloadTui()
  let stopping = false
  let crashed: Error | undefined
  const died = new Promise<never>((_, reject) => {
    worker.once("error", (e) => reject((crashed = e)))
    worker.once("exit", (code) => !stopping && reject((crashed = new Error(`the core stopped unexpectedly (exit ${code})\n${logs.join("").slice(-2000)}`))))
  })
  died.catch(() => {})

  const stop = async () => {
    stopping = true
    await Promise.race([rpc.call("shutdown").catch(() => {}), new Promise((r) => setTimeout(r, 5000).unref())])
    await worker.terminate()
  }
  let ending = false
  /** Ends the process once: the core is shut down (sessions settled), then exit. */
  const end = (code: number) => {
    if (ending) return
    ending = true
    setTimeout(() => process.exit(code), 8000).unref()
    void stop().finally(() => process.exit(code))
  }
  const onCrash = (e: unknown) => {
    if (ending) return
    try {
      restoreTerminal()
      process.stderr.write(`wright crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    } catch {
      // the terminal may be gone
    }
    end(1)
  }
  // The terminal is gone (hangup, or writes fail): nothing to draw or restore, just settle and go.
  const onHangup = () => end(129)
  // A kill quits like the user would: the UI closes, the core settles its sessions.
  const quit = new AbortController()
  const onTerm = () => quit.abort()
  process.on("uncaughtException", onCrash)
  process.on("unhandledRejection", onCrash)
  process.on("SIGTERM", onTerm)
  process.on("SIGHUP", onHangup)
  process.stdout.on("error", onHangup)
  process.stdin.on("error", onHangup)

  try {
    const client = createClient({ baseUrl: "http://wright.internal", fetch: rpc.fetch, directory })
    const ready = Promise.race([rpc.ready, died])
    const sessionID = await pickSession(client, args, ready)
    const notices: string[] = []
    if (serving) {
      const request: ListenRequest = { port: args.port, hostname: args.hostname, cors: args.cors, allowHosts: args.allowHost, insecure: args.insecure, mdns: args.mdns, mdnsDomain: args.mdnsDomain, ...auth }
      const url = await Promise.race([rpc.call<string>("listen", request), died]).catch((e: Error) => {
        throw e.name === "ListenError" ? new UserError(e.message) : e
      })
      notices.push(`Server listening on ${url}`)
    }
    const history = promptHistory()
    await runTui({
      client,
      events: rpc.events,
      directory,
      ready,
      sessionID,
      prompt: args.prompt,
      model,
      variant: args.variant,
      agent: args.agent,
      history: history.load(),
      remember: history.save,
      writeExport,
      // Loaded on the first Ctrl+V: the spawner stays out of the TUI's start.
      readClipboardImage: async () => (await import("./clipboard")).clipboardReader()(),
      modelPrefs: modelPrefs(),
      editText: (text: string, name: string) => editText(text, name, process.cwd()),
      notices,
      signal: quit.signal,
      tuiConfig: tuiConfigPaths(),
    })
  } finally {
    await stop()
    process.off("uncaughtException", onCrash)
    process.off("unhandledRejection", onCrash)
    process.off("SIGTERM", onTerm)
    process.off("SIGHUP", onHangup)
  }
  if (crashed) throw crashed
}

/** -s must name a session that exists; -c picks the newest. Both wait for the core. */
export async function pickSession(client: Client, args: { session?: string; continue?: boolean }, ready: Promise<unknown>): Promise<string | undefined> {
  if (!args.session && !args.continue) return undefined
  await ready
  if (args.session) {
    try {
      return (await client.session.get(args.session)).id
    } catch (e) {
      if ((e as Error).name === "NotFoundError") throw new UserError(`--session: no session with id ${args.session} (wright -c continues the latest one)`)
      throw e
    }
  }
  const [latest] = await client.session.list({ roots: true, limit: 1 })
  return latest?.id
}

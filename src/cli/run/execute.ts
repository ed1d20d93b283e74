// `wright run`: one task, start to finish, through the HTTP API (in-process unless --attach).
// It creates or resumes a session, streams the answer, answers permission asks (reject, or
// once with --auto), and exits 0 on success, 1 on error (a refused permission included), 124 past
// --timeout, 130 when interrupted.
import { existsSync, readFileSync, statSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { createClient, type Client } from "../../sdk"
import { NAMED_ONLY } from "../../permission"
import { emptyTokens, NO_MODEL_ISSUE, parseModelRef, type BusEvent, type InboxItem, type MessageWithParts, type PartInput, type Ruleset, type Session } from "../../protocol"
import type { RunArgs } from "../args"
import { startCore } from "../core"
import { cliLogger } from "../log"
import { clientAuth } from "../password"
import { dim, UserError, yellow } from "../ui"
import { trustNotice } from "../trust/notice"
import { header, jsonRenderer, textRenderer } from "./render"
import { allowingRule, budget, readStdin, STDIN_GRACE_MS, TIMEOUT_EXIT } from "./headless"
import { holdBaselineWasm, mimeOf, terminalSafe, type Logger, type RootLogger } from "../../util"

/**
 * A one-shot run never blocks on a question nobody can answer, nor switches into plan mode.
 * Leaving plan mode (plan_exit) is a permission ask like any other: refused, unless --auto.
 */
const RUN_RULES: Ruleset = [
  { permission: "question", pattern: "*", action: "deny" },
  { permission: "plan_enter", pattern: "*", action: "deny" },
]

export async function run(args: RunArgs) {
  // One task, then exit. Node's fetch compiles its HTTP parser (wasm) on first use, and V8's
  // optimising tier recompiled its main function in the background (~100-250 ms of a core,
  // ~25 MB of memory) while process.exit waited for it. The baseline code parses the stream
  // fast enough; the run holds this until it exits.
  holdBaselineWasm()
  const directory = path.resolve(args.dir ?? process.cwd())
  if (!existsSync(directory) || !statSync(directory).isDirectory()) throw new UserError(`--dir: not a directory: ${directory}`)
  if (args.worktree === undefined) return runIn(args, directory)
  const made = await inWorktree(args, directory)
  try {
    await runIn(args, made.path)
  } finally {
    // Failed before the agent did anything there (bad input, config, no model): no empty worktree is left behind.
    await (await import("../worktree/execute")).dropUnusedWorktree(made)
  }
}

async function runIn(args: RunArgs, directory: string) {
  if (args.timeout !== undefined && !(args.timeout > 0)) throw new UserError("--timeout: give the run's budget in seconds, a number above 0")
  // The budget counts from here: stdin read to its end (`-`) and the start-up are in it too.
  const startedAt = Date.now()
  const early = budget(args.timeout, startedAt, () => {
    process.stderr.write(`${yellow("Timed out:")} the run passed its --timeout of ${args.timeout} s before the agent started\n`)
    process.exit(TIMEOUT_EXIT)
  })
  if (args.resume !== undefined) checkResume(args)
  const message = await promptText(args)
  const model = args.model ? parseModelRef(args.model, "--model") : undefined
  const files = (args.file ?? []).map((f) => filePart(f, directory))
  const schema = args.schema ? readSchema(args.schema, directory) : undefined

  const log = cliLogger(args)
  // The core's progress lines (installs) go straight to stderr until the answer streams; then
  // through the renderer, so that they start on their own line.
  const notices = { write: (s: string) => void process.stderr.write(s) }
  const { client, close, extended } = await connect(args, directory, log, (line) => notices.write(`${dim(line)}\n`))
  early.cancel()
  try {
    const runLog = log.child({ service: "run" })
    const exit = await execute(client, args, { directory, message, model, files, schema, log: runLog, extended, startedAt, notices })
    process.exitCode = exit
    runLog.info("run finished", { exit })
  } finally {
    await close()
  }
}

/** -w: the run's directory becomes a new worktree (made here; a server makes one through POST /session's `worktree`). */
async function inWorktree(args: RunArgs, directory: string) {
  if (args.attach) throw new UserError("-w: with --attach, the server makes the worktree: create the session with POST /session {\"worktree\": \"<name>\"}")
  if (args.session || args.continue) throw new UserError("-w: a worktree starts a new session; drop --session/--continue")
  return (await import("../worktree/execute")).openWorktree(directory, args.worktree || true)
}

async function connect(args: RunArgs, directory: string, log: RootLogger, progress: (line: string) => void): Promise<{ client: Client; close: () => Promise<void>; extended: boolean }> {
  if (args.attach) {
    return { client: createClient({ baseUrl: args.attach, auth: clientAuth(args, process.env), directory }), close: async () => {}, extended: true }
  }
  // Plugin installs (npm) say what they do: a first run can take a while.
  const core = await startCore({ directory, log, progress })
  return { client: createClient({ baseUrl: "http://wright.internal", fetch: core.server.fetch, directory }), close: core.close, extended: core.app.extended }
}

interface Input {
  directory: string
  message: string
  model?: { providerID: string; modelID: string }
  files: PartInput[]
  /** --schema: the answer must be JSON matching it, printed alone on stdout. */
  schema?: Record<string, unknown>
  /** Whether the core may have plugins to report on (false: a local core without any, so GET /plugin is skipped). */
  extended: boolean
  log: Logger
  /** When the run began: --timeout counts from it. */
  startedAt: number
  /** Where the core's progress lines are written; the renderer takes it over once it exists. */
  notices: { write: (s: string) => void }
}

async function execute(client: Client, args: RunArgs, input: Input): Promise<number> {
  const stdout = (s: string) => void process.stdout.write(s)
  const stderr = (s: string) => void process.stderr.write(s)

  if (args.agent) await checkAgent(client, args.agent)
  // A server from before trusted folders has no /trust: nothing to say then.
  const notice = trustNotice((await client.trust.get().catch(() => undefined)) ?? { trusted: true, changed: false, ignored: [] })
  if (notice) stderr(notice)
  // Printed once per run; a server from before /config/warnings has none to give.
  for (const w of await client.config.warnings().catch(() => [])) stderr(`${yellow("Warning:")} ${terminalSafe(w)}\n`)
  const { session, created } = await resolveSession(client, args, !input.message.trim() && !args.command)
  input.log.info("session", { id: session.id, attach: args.attach })
  const delivery = args.steer ? ("steer" as const) : args.queue ? ("queue" as const) : undefined
  const busy = delivery ? undefined : await busyElsewhere(client, args, session.id)
  if (busy) {
    stderr(busy)
    return 1
  }
  const sessions = new Set([session.id])
  // With --schema, stdout carries the JSON result alone; the streamed text is not printed.
  const answerOut = input.schema ? () => {} : stdout
  const renderer =
    args.format === "json"
      ? jsonRenderer({ stdout: answerOut, stderr }, { thinking: args.thinking, sessions, root: session.id, totals: new Map([[session.id, { cost: session.cost ?? 0, tokens: session.tokens ?? emptyTokens() }]]) })
      : textRenderer({ stdout: answerOut, stderr }, { thinking: args.thinking, root: session.id, sessions, tty: Boolean(process.stdout.isTTY) })

  input.notices.write = (s) => renderer.notice(s)

  const events = new AbortController()
  let idle!: () => void
  const idleSeen = new Promise<void>((r) => (idle = r))
  let failed = false
  let sawBusy = false
  let connected!: () => void
  const subscribed = new Promise<void>((r) => (connected = r))
  const pump = (async () => {
    // run only appends streamed text: merged deltas are the same answer in far fewer events.
    for await (const e of client.event.subscribe({ signal: events.signal, coalesce: true })) {
      if (e.type === "server.connected") connected()
      handle(e)
    }
  })().catch((error) => input.log.warn("the event stream failed", { error }))

  const working = busySet()
  const warned = new Set<string>()
  /** The rules that would have allowed each ask this run refused (nobody is there to answer). */
  const refused: string[] = []
  let shownAgent: string | undefined
  function handle(e: BusEvent) {
    // The header names what actually answers: the first step's agent and model.
    // Again when the agent changes (plan_exit handing over to build).
    if (args.format !== "json" && e.type === "message.updated" && e.properties.info.role === "assistant" && e.properties.sessionID === session.id && shownAgent !== e.properties.info.agent) {
      const line = header(e.properties.info.agent, `${e.properties.info.providerID}/${e.properties.info.modelID}`)
      if (shownAgent === undefined) stderr(line)
      else renderer.notice(line)
      shownAgent = e.properties.info.agent
    }
    if (e.type === "session.created" && e.properties.info.parentID && sessions.has(e.properties.info.parentID)) sessions.add(e.properties.info.id)
    if (e.type === "session.status" && e.properties.sessionID === session.id && e.properties.status.type !== "idle") sawBusy = true
    if (e.type === "session.idle" && e.properties.sessionID === session.id && sawBusy) idle()
    if (e.type === "session.status" && sessions.has(e.properties.sessionID)) working.note(e.properties.sessionID, e.properties.status.type !== "idle")
    if (e.type === "message.part.updated" && e.properties.part.type === "tool" && e.properties.part.state.status === "completed" && e.properties.part.state.metadata?.background === true && sessions.has(e.properties.part.sessionID)) working.background = true
    // A plugin or hook that failed is reported with no session: a warning, the run goes on.
    if (e.type === "session.error" && !e.properties.sessionID && e.properties.error) {
      const message = String((e.properties.error.data as { message?: unknown })?.message ?? e.properties.error.name)
      if (!warned.has(message)) renderer.notice(`${yellow("Warning:")} ${message}\n`)
      warned.add(message)
    }
    if (e.type === "session.error" && e.properties.sessionID && sessions.has(e.properties.sessionID) && e.properties.error) {
      if (e.properties.error.name !== "MessageAbortedError") {
        failed = true
        renderer.error(e.properties.sessionID, e.properties.error)
      }
    }
    if (e.type === "permission.asked" && sessions.has(e.properties.sessionID)) {
      const asked = `${yellow("permission requested:")} ${terminalSafe(`${e.properties.permission} (${e.properties.patterns.join(", ")})`)}`
      // --auto is a blanket allow: it never approves what only a rule naming it may (sandbox_escape).
      const named = NAMED_ONLY.has(e.properties.permission)
      const reply = args.auto && !named ? "once" : "reject"
      if (named) renderer.notice(`${asked}; auto-rejecting: --auto does not approve it ${dim(`(only a rule that names it does: "permission": {"${e.properties.permission}": "allow"})`)}\n`)
      else if (!args.auto) renderer.notice(`${asked}; auto-rejecting ${dim(`(allow it with ${allowingRule(e.properties)} in the config, or run with --auto)`)}\n`)
      // A refused escape leaves the call as it ran, inside the sandbox: the task goes on.
      if (reply === "reject" && !named) refused.push(allowingRule(e.properties))
      client.request("POST", `/permission/${encodeURIComponent(e.properties.id)}/reply`, { body: { reply } }).catch((error) => input.log.warn("permission reply failed", { id: e.properties.id, error }))
    }
    renderer.event(e)
  }

  let interrupted = false
  const onSigint = () => {
    if (interrupted) process.exit(130)
    interrupted = true
    stderr(`\n${dim("Interrupted: stopping the agent… (Ctrl+C again to quit at once)")}\n`)
    client.session.abort(session.id).catch(() => {})
  }
  process.on("SIGINT", onSigint)
  let timedOut = false
  const deadline = budget(args.timeout, input.startedAt, () => {
    timedOut = true
    stderr(`\n${yellow("Timed out:")} the run passed its --timeout of ${args.timeout} s; stopping the agent…\n`)
    client.session.abort(session.id).catch(() => {})
    // The abort settles the tool calls and answers the prompt; should it not, go anyway.
    setTimeout(() => process.exit(TIMEOUT_EXIT), 10_000).unref()
  })

  try {
    // Events published before the subscription is live would be lost: wait for it.
    await within(subscribed, 5000)
    // Plugins that failed to load before the stream was up are named here (once each).
    const plugins = input.extended ? await client.request<{ name: string; status: string; error?: string; kind: string; source: string }[]>("GET", "/plugin").catch(() => []) : []
    for (const p of plugins) {
      if (p.status === "loaded" || !p.error) continue
      const message = p.kind === "tool" ? `Custom tool ${p.source} ${p.error}` : `Plugin ${p.name} ${p.error}`
      if (!warned.has(message)) stderr(`${yellow("Warning:")} ${message}\n`)
      warned.add(message)
    }
    let result: MessageWithParts | InboxItem
    try {
      const resumed = !input.message.trim() && !args.command && resuming(args) ? await resumeRun(client, session.id) : undefined
      if (resumed === "idle") {
        // --resume asked only for that: done. -c / --session with no message had nothing to do, as before.
        if (args.resume !== undefined) stderr(`${dim(`Nothing to resume: session ${session.id} was not left working by a crashed wright. Give a message to continue it.`)}\n`)
        else stderr(`${yellow("Nothing to do:")} session ${session.id} was not left working by a crashed wright; give a message to continue it, e.g. wright run -c "go on"\n`)
        return args.resume !== undefined ? 0 : 1
      }
      result = resumed
        ? resumed
        : args.command
        ? await client.request<MessageWithParts | InboxItem>("POST", `/session/${encodeURIComponent(session.id)}/command`, {
            body: {
              ...(delivery ? { delivery } : {}),
              command: args.command,
              arguments: input.message,
              ...(args.agent ? { agent: args.agent } : {}),
              ...(args.model ? { model: args.model } : {}),
              ...(args.variant ? { variant: args.variant } : {}),
              ...(input.files.length ? { parts: input.files } : {}),
            },
          })
        : await client.request<MessageWithParts | InboxItem>("POST", `/session/${encodeURIComponent(session.id)}/message`, {
            body: {
              ...(delivery ? { delivery } : {}),
              ...(args.agent ? { agent: args.agent } : {}),
              ...(input.model ? { model: input.model } : {}),
              ...(input.schema ? { format: { type: "json_schema" as const, schema: input.schema } } : {}),
              ...(args.variant ? { variant: args.variant } : {}),
              parts: [...input.files, { type: "text", text: input.message }],
            },
          })
    } catch (e) {
      const error = e as Error & { body?: { name: string; data: Record<string, unknown> } }
      // The session.error event may show it too: let the stream catch up, then print it once.
      await within(idleSeen, 500)
      const body = error.body ?? { name: error.name, data: { message: error.message } }
      if (timedOut) return TIMEOUT_EXIT
      if (!failed) renderer.error(session.id, flagged(body, args))
      if (created) await dropIfEmpty(client, session.id)
      return 1
    }
    if (!("info" in result)) {
      // The session was busy: the process running it delivers the prompt; nothing more to wait for here.
      const when = result.delivery === "steer" ? "before its next step" : "as a new turn once it is done"
      stderr(`${dim(`Session ${session.id} is busy: your message (${result.id}) waits in its inbox; the agent gets it ${when}.`)}
`)
      return 0
    }
    // The last events may still be in flight on the stream: wait for idle, briefly.
    await within(idleSeen, 2000)
    // Background subagents: wait for them, and for the turns their parent takes on hearing of them.
    if (!args.detach && !interrupted && !timedOut && working.background && (await working.settled())) result = (await client.session.messages(session.id, { limit: 1 }))[0] ?? result
    renderer.finish()
    const info = result.info
    if (timedOut) return TIMEOUT_EXIT
    if (interrupted || (info.role === "assistant" && info.error?.name === "MessageAbortedError")) return 130
    if (info.role === "assistant" && info.error) {
      if (!failed) renderer.error(session.id, info.error)
      return 1
    }
    if (refused.length) {
      // No terminal to ask: the refused call failed, and a subagent's does not stop the parent.
      stderr(`${yellow("A tool call was refused and stopped:")} nobody was there to approve it. Allow it with ${[...new Set(refused)].join(" and ")} in the config, or run with --auto.\n`)
      return 1
    }
    if (info.role === "assistant" && info.finish === "tool-calls") {
      // The loop ended with tool results the model never saw: a refused permission stopped it.
      stderr(`${yellow("The agent stopped before finishing:")} a tool call was refused. Allow it in the config's "permission", or run with --auto.\n`)
      return 1
    }
    if (input.schema) {
      if (info.role !== "assistant" || info.structured === undefined) {
        renderer.error(session.id, { name: "StructuredOutputError", data: { message: "Model did not produce structured output" } })
        return 1
      }
      stdout(JSON.stringify(info.structured) + "\n")
    }
    return failed ? 1 : 0
  } finally {
    process.off("SIGINT", onSigint)
    deadline.cancel()
    events.abort()
    await within(pump, 1000)
  }
}

/** A bad `variant` in the request is the --variant flag's: say so. No model at all: say how to get one here. */
function flagged(body: { name: string; data: Record<string, unknown> }, args: RunArgs) {
  const issues = body.data.issues as { path: string; message?: string }[] | undefined
  if (issues?.some((i) => i.path === "model" && i.message === NO_MODEL_ISSUE)) {
    return { ...body, data: { ...body.data, message: `No model is configured. Store a provider's API key with \`wright auth login\` (it lists the providers), or set its variable (e.g. ANTHROPIC_API_KEY), or choose one with --model or "model" in your config. \`wright models\` lists what you can use.` } }
  }
  if (!args.variant || !issues?.some((i) => i.path === "variant")) return body
  return { ...body, data: { ...body.data, message: `--variant: ${String(body.data.message)}` } }
}

function readSchema(file: string, directory: string): Record<string, unknown> {
  const abs = path.resolve(directory, file)
  let text: string
  try {
    text = readFileSync(abs, "utf8")
  } catch {
    throw new UserError(`--schema: cannot read ${file}`)
  }
  let schema: unknown
  try {
    schema = JSON.parse(text)
  } catch (e) {
    throw new UserError(`--schema: ${file} is not valid JSON (${(e as Error).message})`)
  }
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) throw new UserError(`--schema: ${file} must contain a JSON Schema object`)
  return schema as Record<string, unknown>
}

/** Waits for `p`, at most `ms`; the timer never keeps the process alive. */
function within(p: Promise<unknown>, ms: number) {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))]).finally(() => clearTimeout(timer))
}

/** `--agent` must name a primary agent: subagents only run inside a task. */
async function checkAgent(client: Client, name: string) {
  const agents = await client.agent.list()
  const primary = agents.filter((a) => a.mode !== "subagent" && !a.hidden).map((a) => a.name)
  const agent = agents.find((a) => a.name === name)
  if (!agent || agent.hidden) throw new UserError(`--agent: no agent named "${name}". Available: ${primary.join(", ")}`)
  if (agent.mode === "subagent") throw new UserError(`--agent: "${name}" is a subagent and cannot be the primary agent of run. Use one of: ${primary.join(", ")}`)
}

/**
 * A session another wright process is running (it holds the session's lease) cannot take a
 * second writer: say who holds it and how to join instead. Through --attach the server itself
 * queues the prompt behind the running one.
 */
async function busyElsewhere(client: Client, args: RunArgs, sessionID: string): Promise<string | undefined> {
  if (args.attach) return undefined
  const status = (await client.session.status().catch(() => ({}) as Record<string, never>))[sessionID]
  if (status?.type !== "busy" || !status.holder) return undefined
  const { pid, hostname } = status.holder
  return (
    `${yellow("Session busy:")} ${sessionID} is running in another wright process (pid ${pid} on ${hostname}).\n` +
    `Wait for it to finish, leave your message in its inbox with --queue (a new turn when it is done) or --steer (read before its next step),\n` +
    `or join it: send your message to that process with ${dim(`wright run --attach <its url> --session ${sessionID} "…"`)}\n`
  )
}

/**
 * The run's sessions that are working, from their status events. `settled` resolves once none
 * is, and stays so a moment (a background child's end wakes its parent a few ticks later);
 * true when it had to wait.
 */
function busySet() {
  const busy = new Set<string>()
  let changed = () => {}
  return {
    /** A task was started in the background: only then is there anything to wait for. */
    background: false,
    note(sessionID: string, working: boolean) {
      if (working) busy.add(sessionID)
      else busy.delete(sessionID)
      changed()
    },
    async settled(): Promise<boolean> {
      let waited = false
      for (;;) {
        if (busy.size) {
          waited = true
          await new Promise<void>((r) => (changed = r))
          continue
        }
        await new Promise((r) => setTimeout(r, 150))
        if (!busy.size) return waited
      }
    },
  }
}

/** A session this run made and sent nothing to (the prompt failed before it was stored, e.g. no model) is not kept. */
async function dropIfEmpty(client: Client, sessionID: string) {
  const messages = await client.session.messages(sessionID, { limit: 1 }).catch(() => undefined)
  if (messages?.length === 0) await client.session.delete(sessionID).catch(() => {})
}

/** With no message, -c, --session and --resume carry the session on where a crash left it. */
function resuming(args: RunArgs) {
  return args.resume !== undefined || args.continue === true || args.session !== undefined
}

/** --resume names the session and takes no prompt: a message or a command goes with --session. */
function checkResume(args: RunArgs) {
  if (!args.resume) throw new UserError("--resume: give the id of the session to carry on (wright session list shows them)")
  if (args.session || args.continue) throw new UserError("--resume: names the session itself; drop --session / --continue")
  if (args.message.some((w) => w !== "-") || args.command) throw new UserError(`--resume: takes no message; to send one, use --session ${args.resume} "…"`)
}

/**
 * Carries the session on (POST /session/:id/resume) and waits until it is idle: its last
 * message, or "idle" when nothing was left working. Crashed too often: an error naming why.
 */
async function resumeRun(client: Client, sessionID: string): Promise<MessageWithParts | "idle"> {
  const r = await client.session.resume(sessionID, { wait: true })
  if (r.outcome === "resumed" && r.message) return r.message
  if (r.outcome === "idle" || r.outcome === "resumed") return "idle"
  if (r.outcome === "stopped") {
    const message = r.error ?? "Not resumed: this session crashed too often in a row. Send a message to continue."
    throw Object.assign(new Error(message), { body: { name: "UnknownError", data: { message } } })
  }
  // "busy"/"running": another process runs it (busyElsewhere said so already, unless it just started).
  throw Object.assign(new Error(`Session ${sessionID} is running in another wright process`), { body: { name: "BusyError", data: { message: `Session ${sessionID} is running in another wright process` } } })
}

/** The session to run in; `created` when this run made it. */
async function resolveSession(client: Client, args: RunArgs, noMessage: boolean): Promise<{ session: Session; created: boolean }> {
  if (args.session || args.resume) {
    const id = (args.resume ?? args.session)!
    const flag = args.resume !== undefined ? "--resume" : "--session"
    try {
      return { session: await client.session.get(id), created: false }
    } catch (e) {
      if ((e as Error).name === "NotFoundError") throw new UserError(`${flag}: no session with id ${id}`)
      throw e
    }
  }
  if (args.continue) {
    const [latest] = await client.session.list({ roots: true, limit: 1 })
    if (latest) return { session: latest, created: false }
    if (noMessage) throw new UserError('Nothing to do: there is no session to continue; give a message, e.g. wright run "fix the failing test"')
  }
  return { session: await client.session.create({ ...(args.title ? { title: args.title } : {}), permission: RUN_RULES }), created: true }
}

/**
 * The message, and stdin when piped: read to its end when the message is `-` or absent (nothing
 * else to do), else only if it begins within STDIN_GRACE_MS, so an open pipe nobody writes to
 * (CI runners, harnesses) never blocks the run.
 */
async function promptText(args: RunArgs): Promise<string> {
  // --resume sends no prompt: stdin is not its to read.
  if (args.resume !== undefined) return ""
  // A lone `-` among the words: wait for stdin to its end (`slow | wright run "review" -`).
  const dash = args.message.includes("-")
  let message = args.message.filter((w) => w !== "-").join(" ")
  if (!process.stdin.isTTY) {
    const waitForEnd = dash || (!message.trim() && !args.command)
    const piped = await readStdin(waitForEnd ? undefined : STDIN_GRACE_MS)
    if (piped === undefined) process.stderr.write(dim(`stdin: nothing arrived within ${STDIN_GRACE_MS} ms, going on without it (add - to the message to wait for stdin to close)\n`))
    else if (piped.trim()) message = message ? `${message}\n\n${piped}` : piped
  }
  // No message to an existing session: carry it on where a crash left it (see resumeRun).
  if (!message.trim() && !args.command && !resuming(args)) throw new UserError('Nothing to do: give a message, e.g. wright run "fix the failing test"')
  return message
}


function filePart(file: string, directory: string): PartInput {
  const abs = path.resolve(directory, file)
  if (!existsSync(abs)) throw new UserError(`--file: not found: ${file}`)
  return { type: "file", url: pathToFileURL(abs).href, filename: path.basename(abs), mime: statSync(abs).isDirectory() ? "application/x-directory" : (mimeOf(abs) ?? "text/plain") }
}

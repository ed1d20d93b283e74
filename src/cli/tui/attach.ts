// `wright attach <url>`: the same UI against a running `wright serve`, over HTTP and SSE.
import path from "node:path"
import { createClient } from "../../sdk"
import type { BusEvent } from "../../protocol"
import { runTui, tuiConfigPaths, type EventSource } from "../../tui"
import { clientAuth } from "../password"
import { UserError } from "../ui"
import { editText } from "./editor"
import { holdTypeAhead, parseModelFlag, modelPrefs, promptHistory, requireTerminal, writeExport } from "./terminal"
import { pickSession } from "./thread"

export interface AttachArgs {
  url: string
  dir?: string
  continue?: boolean
  session?: string
  password?: string
  username?: string
  model?: string
  /** The model variant prompts start with (ctrl+t cycles). */
  variant?: string
  agent?: string
  prompt?: string
}

export async function attach(args: AttachArgs) {
  let base: URL
  try {
    base = new URL(args.url)
  } catch {
    throw new UserError(`url: not a URL: ${args.url} (e.g. http://127.0.0.1:4096)`)
  }
  const model = await parseModelFlag(args.model)
  requireTerminal()
  holdTypeAhead()
  const auth = clientAuth(args, process.env)
  const directory = args.dir ? path.resolve(args.dir) : undefined
  const client = createClient({ baseUrl: base.href, auth, directory })

  // Fail before the UI when the server is unreachable or refuses us.
  const ready = client.session.status().then(
    () => undefined,
    (e: Error & { status?: number }) => {
      if (e.status === 401) throw new UserError(`${args.url}: wrong or missing password (WRIGHT_SERVER_PASSWORD, WRIGHT_SERVER_PASSWORD_FILE or -p)`)
      if (e.status === 403) throw new UserError(`${args.url}: ${e.message}`)
      throw new UserError(`${args.url}: cannot reach the server: ${e.message}`)
    },
  )
  await ready
  const sessionID = await pickSession(client, args, ready)

  const stream = new AbortController()
  const listeners = new Set<(e: BusEvent) => void>()
  void (async () => {
    for await (const e of client.event.subscribe({ signal: stream.signal })) for (const fn of listeners) fn(e)
  })().catch(() => {})
  const events: EventSource = {
    subscribe(fn) {
      listeners.add(fn)
      return () => void listeners.delete(fn)
    },
  }
  const history = promptHistory()
  const quit = new AbortController()
  const onTerm = () => quit.abort()
  // The terminal is gone: nothing to draw or restore; the server keeps the sessions.
  const onHangup = () => process.exit(129)
  process.on("SIGTERM", onTerm)
  process.on("SIGHUP", onHangup)
  process.stdout.on("error", onHangup)
  process.stdin.on("error", onHangup)
  try {
    await runTui({
      client,
      events,
      directory: directory ?? process.cwd(),
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
      signal: quit.signal,
      tuiConfig: tuiConfigPaths(),
    })
  } finally {
    stream.abort()
    process.off("SIGTERM", onTerm)
    process.off("SIGHUP", onHangup)
  }
}

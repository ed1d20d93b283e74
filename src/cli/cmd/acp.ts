import type { CommandModule } from "yargs"
import type { LogArgs } from "../log"

interface AcpArgs extends LogArgs {
  cwd?: string
}

export const acpCommand: CommandModule<object, AcpArgs> = {
  command: "acp",
  describe: "serve the Agent Client Protocol on stdio, for editors (Zed, …)",
  builder: (y) =>
    y
      .option("cwd", { type: "string", describe: "project directory (default: the current one)" })
      .epilog('Zed: add {"agent_servers": {"wright": {"command": "wright", "args": ["acp"]}}} to its settings.') as never,
  handler: async (args) => {
    // stdout is the protocol channel: whatever else would print there (a plugin's console.log or
    // process.stdout.write) goes to stderr; the protocol writes through the one writer kept here.
    const protocol = protocolWriter()
    for (const level of ["log", "info", "debug"] as const) console[level] = console.error
    const { existsSync, statSync } = await import("node:fs")
    const path = await import("node:path")
    const { UserError } = await import("../ui")
    const directory = path.resolve(args.cwd ?? process.cwd())
    if (!existsSync(directory) || !statSync(directory).isDirectory()) throw new UserError(`--cwd: not a directory: ${directory}`)

    const [{ startCore }, { createClient }, { runAcp }, { VERSION, yellow }, { trustNotice }, { cliLogger }] = await Promise.all([
      import("../core"),
      import("../../sdk"),
      import("../../acp"),
      import("../ui"),
      import("../trust/notice"),
      import("../log"),
    ])
    // The editor on stdio is the user, and ACP opens no port: its sessions may name any folder
    // (each one's own config is still held to what its trust allows).
    // Logs go to the file, and to stderr with --print-logs: stdout is the protocol.
    const core = await startCore({ directory, allowDirs: ["/"], log: cliLogger(args) })
    const notice = trustNotice(core.app.trust)
    if (notice) process.stderr.write(`wright acp: ${notice}`)
    for (const w of core.app.configWarnings) process.stderr.write(`wright acp: ${yellow("Warning:")} ${w}\n`)
    const clientFor = (dir: string) => createClient({ baseUrl: "http://wright.internal", fetch: core.server.fetch, directory: dir })
    const stop = new AbortController()
    const onSignal = () => stop.abort()
    process.once("SIGINT", onSignal)
    process.once("SIGTERM", onSignal)
    try {
      await runAcp({ client: clientFor(directory), clientFor, version: VERSION, signal: stop.signal, output: protocol })
    } finally {
      await core.close()
    }
    // Keep-alive sockets and background timers must not hold the finished process open.
    process.exit(process.exitCode ?? 0)
  },
}

/** Takes stdout for the protocol: returns a stream onto it, and sends every other write to stderr. */
function protocolWriter(): WritableStream<Uint8Array> {
  const write = process.stdout.write.bind(process.stdout) as (chunk: Uint8Array, done: (e?: Error | null) => void) => boolean
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write
  return new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve, reject) => void write(chunk, (e) => (e ? reject(e) : resolve()))),
  })
}

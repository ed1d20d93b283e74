// `wright serve`: the HTTP API on a TCP port, for remote front ends and the official SDK,
// through the guarded listener (server/listener.ts). Loopback by default; the password comes
// from the environment, a file or a prompt; a non-loopback address without one is refused
// unless --insecure. Ctrl+C (or SIGTERM) stops the running sessions, ends the event streams
// and closes the database.
import path from "node:path"
import { advertise, listen, listenRefusal, mdnsRefusal, type Advertised } from "../../server"
import type { ServeArgs } from "../args"
import { startCore } from "../core"
import { cliLogger } from "../log"
import { trustNotice } from "../trust/notice"
import { listenerAuth } from "../password"
import { UserError, yellow } from "../ui"

/** How long running sessions get to stop after Ctrl+C / SIGTERM. */
const SHUTDOWN_GRACE_MS = 10_000

export async function serve(args: ServeArgs) {
  const directory = path.resolve(args.dir ?? process.cwd())
  if (args.port !== undefined && (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535)) throw new UserError(`--port: expected 0-65535 (0 picks a free port), got ${args.port}`)
  const auth = await listenerAuth(args, process.env)
  // The browser UI turns pairing on, and with it auth even without a password (web/execute.ts).
  const web = args.web ? await import("../web/execute") : undefined
  const pairing = web?.webPairing(process.env)
  // A hostname from the config is refused the same way by listen(), once the config is read.
  const refused = listenRefusal(args.hostname ?? (args.mdns ? "0.0.0.0" : "127.0.0.1"), { password: auth.password, insecure: args.insecure, pairing })
  if (refused) throw new UserError(refused)
  const mdnsRefused = args.mdns ? mdnsRefusal(args.hostname ?? "0.0.0.0", auth.password) : undefined
  if (mdnsRefused) throw new UserError(mdnsRefused)

  // Listen for the stop signals before anyone can learn the URL: a signal that arrives
  // before a listener exists kills the process without the clean shutdown below.
  const stopRequested = new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve())
    process.once("SIGTERM", () => resolve())
  })

  const log = cliLogger(args)
  const core = await startCore({ directory, allowDirs: args.allowDir, log })
  // The flags win over the config's server.port/hostname (a project's only once its folder is trusted).
  const port = args.port ?? core.app.config.server?.port ?? 4096
  const mdns = args.mdns ?? core.app.config.server?.mdns === true
  // --mdns is for the network: without a --hostname it binds every interface (as OpenCode).
  const hostname = args.hostname ?? core.app.config.server?.hostname ?? (mdns ? "0.0.0.0" : "127.0.0.1")
  // Allowed origins come from the flags and the user's own config, never from the project's.
  const cors = [...(args.cors ?? []), ...(core.app.userConfig.server?.cors ?? [])]
  let listening: Awaited<ReturnType<typeof listen>>
  try {
    listening = await listen({ fetch: core.server.fetch, port, hostname, cors, allowHosts: args.allowHost, insecure: args.insecure, ...auth, web: pairing && { pairing } })
  } catch (e) {
    await core.close()
    throw (e as Error).name === "ListenError" ? new UserError((e as Error).message) : e
  }
  if (!auth.password && !pairing) process.stderr.write(`${yellow("Warning:")} WRIGHT_SERVER_PASSWORD is not set; the server is unsecured.\n`)
  const notice = trustNotice(core.app.trust)
  if (notice) process.stderr.write(notice)
  for (const w of core.app.configWarnings) process.stderr.write(`${yellow("Warning:")} ${w}\n`)
  log.child({ service: "serve" }).info("listening", { url: listening.url })
  process.stdout.write(`wright server listening on ${listening.url}\n`)
  const forget = web && pairing ? await web.announce({ url: listening.url, port: listening.port, hostname, pairing, open: args.open, cwd: directory }) : undefined
  // Sessions of this project that a crashed wright process left working carry on here.
  const resumed = core.app.resume.resumeAll()
  if (resumed.length) process.stderr.write(`Resumed after a crash: ${resumed.join(", ")}\n`)
  let advertised: Advertised | undefined
  if (mdns) {
    try {
      advertised = await advertise({ port: listening.port, hostname, password: auth.password, domain: args.mdnsDomain ?? core.app.config.server?.mdnsDomain })
    } catch (e) {
      listening.close()
      await core.close()
      throw new UserError((e as Error).message)
    }
    process.stdout.write(`mDNS: advertised as ${advertised.name} (_http._tcp) at ${advertised.host}:${listening.port}\n`)
  }

  await stopRequested
  // A second signal, or a shutdown stuck on something, must not leave the process running.
  const force = () => {
    process.stderr.write("wright serve: forced exit before a clean shutdown\n")
    process.exit(1)
  }
  process.once("SIGINT", force)
  process.once("SIGTERM", force)
  setTimeout(force, SHUTDOWN_GRACE_MS).unref()
  forget?.()
  core.server.dispose()
  await advertised?.stop()
  const closed = listening.close()
  await core.close()
  await closed
}

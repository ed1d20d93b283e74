// `wright serve`: the HTTP API on a TCP port, for remote front ends and the official SDK.
// Loopback by default; basic auth when WRIGHT_SERVER_PASSWORD is set; a non-loopback
// address without a password is refused unless --insecure. Ctrl+C (or SIGTERM) stops the
// running sessions, ends the event streams and closes the database.
import { serve as listen } from "@hono/node-server"
import path from "node:path"
import { authFromEnv, secure } from "../../server"
import type { ServeArgs } from "../args"
import { startCore } from "../core"
import { UserError, yellow } from "../ui"

/** How long running sessions get to stop after Ctrl+C / SIGTERM. */
const SHUTDOWN_GRACE_MS = 10_000

export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase()
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h)
}

export async function serve(args: ServeArgs) {
  const directory = path.resolve(args.dir ?? process.cwd())
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) throw new UserError(`--port: expected 0-65535 (0 picks a free port), got ${args.port}`)
  const auth = authFromEnv(process.env)
  if (!auth.password && !isLoopback(args.hostname) && !args.insecure) {
    throw new UserError(
      `Refusing to listen on ${args.hostname} without a password: anyone who can reach it could run commands on this machine.\n` +
        `Set WRIGHT_SERVER_PASSWORD, use --hostname 127.0.0.1, or pass --insecure if the network is trusted.`,
    )
  }

  // Listen for the stop signals before anyone can learn the URL: a signal that arrives
  // before a listener exists kills the process without the clean shutdown below.
  const stopRequested = new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve())
    process.once("SIGTERM", () => resolve())
  })

  const core = await startCore({ directory })
  const cors = [...(args.cors ?? []), ...(core.app.config.server?.cors ?? [])]
  const server = listen({ fetch: secure(core.server.fetch, { ...auth, cors }), port: args.port, hostname: args.hostname })
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", () => resolve())
      server.once("error", (e: NodeJS.ErrnoException) =>
        reject(
          e.code === "EADDRINUSE"
            ? new UserError(`--port: ${args.port} is already in use (pass another, or 0 for a free one)`)
            : e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND"
              ? new UserError(`--hostname: cannot listen on ${args.hostname} (${e.code})`)
              : e,
        ),
      )
    })
  } catch (e) {
    await core.close()
    throw e
  }
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : args.port
  const host = args.hostname.includes(":") ? `[${args.hostname}]` : args.hostname
  if (!auth.password) process.stderr.write(`${yellow("Warning:")} WRIGHT_SERVER_PASSWORD is not set; the server is unsecured.\n`)
  process.stdout.write(`wright server listening on http://${host}:${port}\n`)

  await stopRequested
  // A second signal, or a shutdown stuck on something, must not leave the process running.
  const force = () => {
    process.stderr.write("wright serve: forced exit before a clean shutdown\n")
    process.exit(1)
  }
  process.once("SIGINT", force)
  process.once("SIGTERM", force)
  setTimeout(force, SHUTDOWN_GRACE_MS).unref()
  core.server.dispose()
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
  await core.close()
  await closed
}

// `wright serve`: the HTTP API on a TCP port, for remote front ends and the official SDK.
import { serve as listen } from "@hono/node-server"
import path from "node:path"
import type { ServeArgs } from "../args"
import { startCore } from "../core"
import { UserError, yellow } from "../ui"

export async function serve(args: ServeArgs) {
  const directory = path.resolve(args.dir ?? process.cwd())
  const core = await startCore({ directory })
  const server = listen({ fetch: core.server.fetch, port: args.port, hostname: args.hostname })
  await new Promise<void>((resolve, reject) => {
    server.once("listening", () => resolve())
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(e.code === "EADDRINUSE" ? new UserError(`--port: ${args.port} is already in use`) : e),
    )
  })
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : args.port
  const host = args.hostname.includes(":") ? `[${args.hostname}]` : args.hostname
  if (!process.env.WRIGHT_SERVER_PASSWORD && !process.env.OPENCODE_SERVER_PASSWORD)
    process.stderr.write(`${yellow("Warning:")} WRIGHT_SERVER_PASSWORD is not set; the server is unsecured.\n`)
  process.stdout.write(`wright server listening on http://${host}:${port}\n`)

  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once("SIGINT", stop)
    process.once("SIGTERM", stop)
  })
  server.close()
  await core.close()
}

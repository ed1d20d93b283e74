import type { CommandModule } from "yargs"
import type { ServeArgs } from "../args"

export const serveCommand: CommandModule<object, ServeArgs> = {
  command: "serve",
  describe: "serve the HTTP API (OpenCode-compatible) on a TCP port",
  builder: (y) =>
    y
      .option("port", { type: "number", default: 4096, describe: "port to listen on (0 picks a free one)" })
      .option("hostname", { type: "string", default: "127.0.0.1", describe: "address to bind" })
      .option("cors", { type: "string", array: true, describe: "extra allowed browser origin, exact (repeatable)" })
      .option("insecure", { type: "boolean", describe: "allow a non-loopback hostname without a password" })
      .option("dir", { type: "string", describe: "default project directory" })
      .epilog("Set WRIGHT_SERVER_PASSWORD to require HTTP basic auth (username WRIGHT_SERVER_USERNAME, default wright).") as never,
  handler: async (args) => {
    const { serve } = await import("../serve/execute")
    await serve(args)
    // Keep-alive sockets and background timers must not hold a stopped server open.
    process.exit(process.exitCode ?? 0)
  },
}

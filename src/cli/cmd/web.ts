import type { Argv, CommandModule } from "yargs"
import type { WebAdminArgs, WebArgs } from "../web/execute"
import { LISTENER_EPILOG, listenerOptions } from "./serve"

const WEB_EPILOG = [
  "Opening the pairing link gives that browser a cookie for this server (one use, expires after 5 minutes); a restart unpairs every browser. " +
    "With pairing on, every request needs the cookie or the password, even on loopback. From a phone on your network: " +
    "WRIGHT_SERVER_PASSWORD=… wright web --hostname 0.0.0.0, then scan the QR code.",
  LISTENER_EPILOG,
].join("\n\n")

const adminPort = <T>(y: Argv<T>) => y.option("port", { type: "number", describe: "the server's port, when several run" })

export const webCommand: CommandModule<object, WebArgs> = {
  command: "web",
  describe: "serve the browser UI (and the HTTP API) with a one-time pairing link",
  builder: (y) =>
    listenerOptions(
      y
        .option("port", { type: "number", describe: "port to listen on (0 picks a free one; default: server.port in the config, else 4096)" })
        .option("hostname", { type: "string", describe: "address to bind (default: server.hostname in the config, else 127.0.0.1)" })
        .option("dir", { type: "string", describe: "default project directory" })
        .option("open", { type: "boolean", describe: "open the pairing link in this machine's browser" }),
    )
      .command({
        command: "pair",
        describe: "print a fresh pairing link for the running wright web",
        builder: (y) => adminPort(y) as never,
        handler: async (args) => void (await (await import("../web/execute")).webPair(args as WebAdminArgs)),
      })
      .command({
        command: "devices",
        describe: "list the browsers paired with the running wright web",
        builder: (y) => adminPort(y) as never,
        handler: async (args) => void (await (await import("../web/execute")).webDevices(args as WebAdminArgs)),
      })
      .command({
        command: "revoke <id>",
        describe: "unpair a browser (its id from wright web devices)",
        builder: (y) => adminPort(y).positional("id", { type: "string", demandOption: true }) as never,
        handler: async (args) => void (await (await import("../web/execute")).webRevoke(args as WebAdminArgs)),
      })
      .epilog(WEB_EPILOG) as never,
  handler: async (args) => {
    const { serve } = await import("../serve/execute")
    await serve({ ...args, web: true })
    process.exit(process.exitCode ?? 0)
  },
}

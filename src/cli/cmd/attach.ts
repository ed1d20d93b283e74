import type { CommandModule } from "yargs"
import type { AttachArgs } from "../tui/attach"

export const attachCommand: CommandModule<object, AttachArgs> = {
  command: "attach <url>",
  describe: "open the interactive UI on a running `wright serve`",
  builder: (y) =>
    y
      .positional("url", { type: "string", demandOption: true, describe: "the server, e.g. http://127.0.0.1:4096" })
      .option("dir", { type: "string", describe: "project directory on the server" })
      .option("continue", { alias: "c", type: "boolean", describe: "continue the most recent session" })
      .option("session", { alias: "s", type: "string", describe: "open the session with this id" })
      .option("password", { alias: "p", type: "string", describe: "basic auth password; visible to other users in ps, prefer $WRIGHT_SERVER_PASSWORD or $WRIGHT_SERVER_PASSWORD_FILE" })
      .option("username", { alias: "u", type: "string", describe: "basic auth username (default: $WRIGHT_SERVER_USERNAME or wright)" })
      .option("model", { alias: "m", type: "string", describe: "model as provider/model" })
      .option("agent", { type: "string", describe: "primary agent to start with" })
      .option("variant", { type: "string", describe: "model variant to start with; ctrl+t cycles" })
      .option("prompt", { type: "string", describe: "send this prompt at start" }) as never,
  handler: async (args) => {
    const { attach } = await import("../tui/attach")
    await attach(args)
    process.exit(process.exitCode ?? 0)
  },
}

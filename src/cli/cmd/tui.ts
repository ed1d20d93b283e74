import type { CommandModule } from "yargs"
import type { TuiArgs } from "../tui/thread"
import { listenerOptions } from "./serve"

export const tuiCommand: CommandModule<object, TuiArgs> = {
  command: "$0 [project]",
  describe: "open the interactive UI (the default command)",
  builder: (y) =>
    listenerOptions(
      y
        .positional("project", { type: "string", describe: "project directory (default: the current one)" })
        .option("model", { alias: "m", type: "string", describe: "model as provider/model" })
        .option("agent", { type: "string", describe: "primary agent to start with (build, plan, …)" })
        .option("variant", { type: "string", describe: "model variant to start with (reasoning effort, e.g. high); ctrl+t cycles" })
        .option("continue", { alias: "c", type: "boolean", describe: "continue the most recent session" })
        .option("session", { alias: "s", type: "string", describe: "open the session with this id" })
        .option("prompt", { type: "string", describe: "send this prompt at start" })
        .option("worktree", { alias: "w", type: "string", describe: "work in a new git worktree on branch wright/<name> (no name: a generated one); the main checkout is not touched. See wright worktree" })
        .option("port", { type: "number", describe: "also serve the HTTP API on this port (0 picks one), guarded as wright serve is" })
        .option("hostname", { type: "string", describe: "address for --port (default 127.0.0.1)" }),
    ).epilog("--port/--hostname serve the API through the same guarded listener as wright serve, with the same flags (see wright serve --help).") as never,
  handler: async (args) => {
    const { tui } = await import("../tui/thread")
    await tui(args)
    process.exit(process.exitCode ?? 0)
  },
}

import type { CommandModule } from "yargs"

export const debugCommand: CommandModule = {
  command: "debug <action>",
  describe: "diagnostics of a running core",
  builder: (y) =>
    y
      .command({
        command: "heap",
        describe: "write a V8 heap snapshot of a running core (wright serve, or the TUI started with --port) and print its path",
        builder: (s) =>
          s
            .option("url", { type: "string", describe: "the server (as wright serve prints it); without it, a core started for this command" })
            .option("output", { alias: "o", type: "string", describe: "copy the snapshot here (the server must be on this machine)" })
            .option("password", { alias: "p", type: "string", describe: "password for --url; visible to other users in ps, prefer $WRIGHT_SERVER_PASSWORD or $WRIGHT_SERVER_PASSWORD_FILE" })
            .option("username", { alias: "u", type: "string", describe: "username for --url (default: $WRIGHT_SERVER_USERNAME or wright)" })
            .option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../debug/heap")).heap(args as never),
      })
      .demandCommand(1, "Name an action: wright debug heap"),
  handler: () => {},
}

// `wright plugin list`: what the project's plugins, custom tools and command hooks are, where
// each came from, the hooks and tools it added, and what failed. Loads the core only when run.
import type { CommandModule } from "yargs"

export const pluginCommand: CommandModule = {
  command: "plugin <action>",
  aliases: ["plug"],
  describe: "list the plugins, custom tools and command hooks of this project",
  builder: (y) =>
    y
      .command({
        command: "list",
        describe: "show what loaded, from where, the hooks and tools each added, and what failed",
        builder: (s) => s.option("format", { choices: ["table", "json"] as const, default: "table" as const }).option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../plugin/list")).pluginList(args as never),
      })
      .demandCommand(1, "Name an action: wright plugin list"),
  handler: () => {},
}

// Small management commands (models, sessions, export, agents). Each runs against the
// in-process API and loads the core only when invoked.
import type { CommandModule } from "yargs"

type Dir = { dir?: string }

export const modelsCommand: CommandModule<object, Dir & { provider?: string; verbose?: boolean; refresh?: boolean; format: "table" | "json" }> = {
  command: "models [provider]",
  describe: "list the models of the providers you can use (configured or with an API key)",
  builder: (y) =>
    y
      .positional("provider", { type: "string", describe: "only this provider" })
      .option("verbose", { type: "boolean", describe: "show context limits and prices" })
      .option("refresh", { type: "boolean", describe: "fetch the current model catalogue first (catalog.url in your global config, models.dev by default) and cache it" })
      .option("format", { choices: ["table", "json"] as const, default: "table" as const })
      .option("dir", { type: "string", describe: "project directory" }) as never,
  handler: async (args) => (await import("../manage/execute")).models(args),
}

export const sessionCommand: CommandModule = {
  command: "session <action>",
  describe: "list or delete sessions of this project",
  builder: (y) =>
    y
      .command({
        command: "list",
        describe: "list sessions, most recently updated first",
        builder: (s) =>
          s
            .option("max-count", { alias: "n", type: "number", describe: "show at most this many" })
            .option("format", { choices: ["table", "json"] as const, default: "table" as const })
            .option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../manage/execute")).sessionList(args as never),
      })
      .command({
        command: "delete <id>",
        describe: "delete a session with its messages and child sessions",
        builder: (s) => s.positional("id", { type: "string", demandOption: true }).option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../manage/execute")).sessionDelete(args as never),
      })
      .demandCommand(1, "Name an action: wright session list | delete <id>"),
  handler: () => {},
}

export const exportCommand: CommandModule<object, Dir & { sessionID?: string }> = {
  command: "export [sessionID]",
  describe: "print a session as JSON ({info, messages}); the most recent one by default",
  builder: (y) => y.positional("sessionID", { type: "string" }).option("dir", { type: "string", describe: "project directory" }) as never,
  handler: async (args) => (await import("../manage/execute")).exportSession(args),
}

export const agentCommand: CommandModule = {
  command: "agent <action>",
  describe: "list the agents of this project",
  builder: (y) =>
    y
      .command({
        command: "list",
        describe: "list agents (built-in, config and Markdown), the default first",
        builder: (s) => s.option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../manage/execute")).agentList(args as never),
      })
      .demandCommand(1, "Name an action: wright agent list"),
  handler: () => {},
}

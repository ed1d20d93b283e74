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
            .option("all", { type: "boolean", describe: "every project's sessions, with their directories" })
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

export const exportCommand: CommandModule<object, Dir & { sessionID?: string; format: "json" | "markdown" }> = {
  command: "export [sessionID]",
  describe: "print a session as JSON ({info, messages}) or as a Markdown transcript; the most recent one by default",
  builder: (y) =>
    y
      .positional("sessionID", { type: "string" })
      .option("format", { choices: ["json", "markdown"] as const, default: "json" as const, describe: "json: what `wright import` and `opencode import` read; markdown: the transcript" })
      .option("dir", { type: "string", describe: "project directory" }) as never,
  handler: async (args) => (await import("../manage/execute")).exportSession(args),
}

export const importCommand: CommandModule<object, Dir & { file: string }> = {
  command: "import <file>",
  describe: "add a session exported by `wright export` or `opencode export` to this project",
  builder: (y) => y.positional("file", { type: "string", demandOption: true, describe: "the export's JSON file" }).option("dir", { type: "string", describe: "project directory" }) as never,
  handler: async (args) => (await import("../manage/execute")).importFile(args),
}

export const agentCommand: CommandModule = {
  command: "agent <action>",
  describe: "list the agents of this project, or create one",
  builder: (y) =>
    y
      .command({
        command: "list",
        describe: "list agents (built-in, config and Markdown), the default first",
        builder: (s) => s.option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../manage/execute")).agentList(args as never),
      })
      .command({
        command: "create",
        describe: "describe an agent; the model writes its prompt and it is saved as .wright/agent/<name>.md",
        builder: (s) =>
          s
            .option("description", { alias: "d", type: "string", describe: "what the agent should do (asked for when omitted on a terminal)" })
            .option("mode", { choices: ["all", "primary", "subagent"] as const, default: "all" as const, describe: "where the agent can be used" })
            .option("tools", { type: "string", describe: "comma list of the tools it keeps (bash, read, edit, glob, grep, list, webfetch, task, todowrite, skill); default all" })
            .option("path", { type: "string", describe: "directory to write the agent file into (default .wright/agent in the project)" })
            .option("global", { type: "boolean", describe: "write it into ~/.config/wright/agent, for every project" })
            .option("model", { alias: "m", type: "string", describe: "provider/model that writes it (default: the configured model)" })
            .option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../manage/agent-create")).agentCreate(args as never),
      })
      .demandCommand(1, "Name an action: wright agent list | create"),
  handler: () => {},
}

export const statsCommand: CommandModule<object, { days?: number; tools?: number; models?: number; project?: string; format: "table" | "json" }> = {
  command: "stats",
  describe: "tokens, cost and tool use per model, per day and per project",
  builder: (y) =>
    y
      .option("days", { type: "number", describe: "only the last N days (today counts as one)" })
      .option("tools", { type: "number", describe: "show the N most used tools (default 10)" })
      .option("models", { type: "number", describe: "show only the N costliest models" })
      .option("project", { type: "string", describe: "only sessions started in this directory or below it (empty: the current one)" })
      .option("format", { choices: ["table", "json"] as const, default: "table" as const }) as never,
  handler: async (args) => (await import("../manage/stats")).stats(args),
}

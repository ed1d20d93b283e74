import type { CommandModule } from "yargs"

type Args = Record<string, unknown>
const run = (name: "list" | "add" | "remove" | "auth" | "authList" | "logout" | "debug") => async (args: Args) => (await import("../mcp/execute"))[name](args as never)

export const mcpCommand: CommandModule = {
  command: "mcp <action>",
  describe: "list, add, remove and log in to MCP servers",
  builder: (y) =>
    y
      .command({
        command: "list",
        aliases: ["ls"],
        describe: "connect to each configured MCP server and show its status, tools, prompts and resources",
        builder: (s) =>
          s
            .option("dir", { type: "string", describe: "project directory whose config counts (default: the current one)" })
            .option("format", { choices: ["text", "json"] as const, default: "text", describe: "output format" }),
        handler: run("list"),
      })
      .command({
        command: "add [name] [command..]",
        describe: "add an MCP server to your config: a URL (remote) or a command after -- (local); asks for what is missing on a terminal",
        builder: (s) =>
          s
            .positional("name", { type: "string", describe: "the server's name (its tools are <name>_<tool>)" })
            .positional("command", { type: "string", array: true, describe: "the local server's command and arguments (after --)" })
            .option("url", { type: "string", describe: "a remote server's URL (Streamable HTTP, or HTTP+SSE)" })
            .option("header", { type: "string", array: true, describe: "a remote server's header, KEY=VALUE (repeatable)" })
            .option("env", { type: "string", array: true, describe: "a local server's environment variable, KEY=VALUE (repeatable)" })
            .option("timeout", { type: "number", describe: "milliseconds to wait for the server (default 30000)" })
            .option("oauth", { type: "boolean", describe: "use OAuth for a remote server (default: yes; --no-oauth turns it off)" })
            .option("client-id", { type: "string", describe: "a pre-registered OAuth client id (default: dynamic registration)" })
            .option("scope", { type: "string", describe: "OAuth scopes to ask for" })
            .option("project", { type: "boolean", describe: "write the project's config (wright.json here) instead of your global one" })
            .example("$0 mcp add docs --url https://example.com/mcp", "a remote server")
            .example("$0 mcp add fs -- npx -y @modelcontextprotocol/server-filesystem .", "a local server"),
        handler: run("add"),
      })
      .command({
        command: "remove <name>",
        aliases: ["rm"],
        describe: "remove an MCP server from the config files that define it (your global one, this project's)",
        builder: (s) => s.positional("name", { type: "string", demandOption: true }).option("dir", { type: "string", describe: "project directory (default: the current one)" }),
        handler: run("remove"),
      })
      .command({
        command: "auth [name]",
        describe: "log in to a remote MCP server with OAuth (browser, loopback callback); `auth list` shows the logins",
        builder: (s) =>
          s
            .positional("name", { type: "string", describe: "the server's name (asked for on a terminal when left out); `list` lists the logins" })
            .option("dir", { type: "string", describe: "project directory whose config counts (default: the current one)" })
            .option("open", { type: "boolean", default: true, describe: "open the browser (--no-open only prints the URL)" }),
        handler: async (args) => (args.name === "list" || args.name === "ls" ? run("authList")(args) : run("auth")(args)),
      })
      .command({
        command: "logout <name>",
        describe: "forget a remote MCP server's OAuth tokens and client registration",
        builder: (s) => s.positional("name", { type: "string", demandOption: true }),
        handler: run("logout"),
      })
      .command({
        command: "debug <name>",
        describe: "show how one MCP server is configured, its login, what its URL answers, and what connecting to it gives",
        builder: (s) => s.positional("name", { type: "string", demandOption: true }).option("dir", { type: "string", describe: "project directory (default: the current one)" }),
        handler: run("debug"),
      })
      .demandCommand(1, "Name an action: wright mcp list | add | remove <name> | auth [name] | logout <name> | debug <name>")
      .epilog(
        "Servers are read from `mcp` in your config files; a folder's own config starts none until you trust it (wright trust). " +
          "OAuth tokens are kept in ~/.local/share/wright/mcp-auth.json (mode 0600) and refresh by themselves.",
      ),
  handler: () => {},
}

import type { CommandModule } from "yargs"

type Provider = { provider?: string; dir?: string; browser?: boolean }

export const authCommand: CommandModule = {
  command: "auth <action>",
  aliases: ["providers"],
  describe: "store, list or remove provider API keys and sign-ins (kept in ~/.local/share/wright/auth.json, mode 0600)",
  builder: (y) =>
    y
      .command({
        command: "login [provider]",
        describe: "store a provider's API key (typed hidden on a terminal, or read from stdin), or sign in: github-copilot (GitHub Copilot), chatgpt (ChatGPT Plus/Pro, for openai)",
        builder: (s) =>
          s
            .positional("provider", { type: "string", describe: "provider id, e.g. anthropic, or github-copilot / chatgpt to sign in (asked for on a terminal when left out)" })
            .option("browser", { type: "boolean", default: true, describe: "open the ChatGPT sign-in page in the browser (--no-browser: only print it)" }),
        handler: async (args) => (await import("../auth/execute")).login(args as Provider),
      })
      .command({
        command: "list",
        aliases: ["ls"],
        describe: "list the providers that have a key and where each comes from (config, store, env), never the key",
        builder: (s) => s.option("dir", { type: "string", describe: "project directory whose config counts (default: the current one)" }),
        handler: async (args) => (await import("../auth/execute")).list(args as Provider),
      })
      .command({
        command: "logout [provider]",
        describe: "remove a provider's stored key",
        builder: (s) => s.positional("provider", { type: "string", describe: "provider id (asked for on a terminal when left out)" }),
        handler: async (args) => (await import("../auth/execute")).logout(args as Provider),
      })
      .demandCommand(1, "Name an action: wright auth login [provider] | list | logout [provider]")
      .epilog(
        "A provider's key is taken from provider.<id>.options.apiKey in your config first, then from the store (wright's auth.json, " +
          "then OpenCode's ~/.local/share/opencode/auth.json, which wright reads and never writes), then from the provider's environment variable.",
      ),
  handler: () => {},
}

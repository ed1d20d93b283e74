import type { CommandModule } from "yargs"
import type { TrustArgs } from "../trust/execute"

export const trustCommand: CommandModule<object, TrustArgs> = {
  command: "trust [dir]",
  describe: "trust a folder's own config (wright.json, opencode.json, .wright/, .opencode/): MCP servers, {env:}, looser rules",
  builder: (y) =>
    y
      .positional("dir", { type: "string", describe: "the project folder (default: the current one)" })
      .option("revoke", { type: "boolean", describe: "stop trusting the folder" })
      .option("list", { type: "boolean", describe: "list the trusted folders" })
      .epilog(
        "Until a folder is trusted its config cannot start MCP servers, read {env:} or {file:} outside the project, loosen your permission rules, " +
          "redirect a provider whose key is yours, or add server origins. Trust is kept with a hash of the config: when it changes, wright asks again. " +
          "For one run, pass --trust or set WRIGHT_TRUST=1.",
      ) as never,
  handler: async (args) => (await import("../trust/execute")).trust(args),
}

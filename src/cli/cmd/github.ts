import type { CommandModule } from "yargs"

/** `wright github install|run`: wright in GitHub Actions (src/cli/github/). */
export const githubCommand: CommandModule = {
  command: "github <action>",
  describe: "run wright in GitHub Actions on /wright comments: install the workflow, or run from the event",
  builder: (y) =>
    y
      .command({
        command: "install",
        describe: "write .github/workflows/wright.yml and say which secret to add",
        builder: (s) =>
          s
            .option("provider", { type: "string", describe: "the provider whose API key the workflow uses (default: the configured model's)" })
            .option("model", { type: "string", describe: "model as provider/model for the workflow (default: the configured one)" })
            .option("action", { type: "string", describe: "the action to use, owner/repo@ref (default: wright's own repository)" })
            .option("dir", { type: "string", describe: "the repository (default: the current directory)" })
            .option("force", { type: "boolean", describe: "replace an existing workflow file" }),
        handler: async (args) => (await import("../github/install")).githubInstall(args as never, (s) => void process.stdout.write(s)),
      })
      .command({
        command: "run",
        describe: "act on the GitHub Actions event (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH): answer a /wright comment",
        builder: (s) =>
          s
            .option("model", { type: "string", describe: "model as provider/model (default: the configured one)" })
            .option("dir", { type: "string", describe: "the checkout (default: $GITHUB_WORKSPACE, else the current directory)" }),
        handler: async (args) => {
          const code = await (await import("../github/run")).githubRun(args as never)
          await new Promise<void>((r) => process.stdout.write("", () => r()))
          process.exit(code)
        },
      })
      .demandCommand(1, "say install or run") as never,
  handler: () => {},
}

// `wright worktree list | merge <name> | discard <name>`: the worktrees `-w` made for sessions.
import type { CommandModule } from "yargs"

export const worktreeCommand: CommandModule = {
  command: "worktree <action>",
  describe: "list, merge or discard the git worktrees sessions ran in (wright run -w, wright -w)",
  builder: (y) =>
    y
      .command({
        command: "list",
        describe: "the worktrees of this repository: branch, commits not merged, uncommitted files, path",
        builder: (s) => s.option("format", { choices: ["table", "json"] as const, default: "table" as const }).option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../worktree/execute")).worktreeList(args as never),
      })
      .command({
        command: "merge <name>",
        describe: "bring the worktree's commits and uncommitted changes into the main checkout (refused when that would overwrite uncommitted changes there)",
        builder: (s) => s.positional("name", { type: "string", demandOption: true }).option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../worktree/execute")).worktreeMerge(args as never),
      })
      .command({
        command: "discard <name>",
        describe: "remove the worktree and its branch (asks first when it has unmerged work)",
        builder: (s) =>
          s
            .positional("name", { type: "string", demandOption: true })
            .option("force", { alias: "f", type: "boolean", describe: "discard unmerged commits and uncommitted changes without asking" })
            .option("dir", { type: "string", describe: "project directory" }),
        handler: async (args) => (await import("../worktree/execute")).worktreeDiscard(args as never),
      })
      .demandCommand(1, "Name an action: wright worktree list | merge <name> | discard <name>"),
  handler: () => {},
}

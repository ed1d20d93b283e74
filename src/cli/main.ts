// The composition root: parses the command line and hands each command to a handler that
// is loaded only when that command runs, so `--help` and `--version` stay light.
import yargs, { type Argv, type CommandModule } from "yargs"
import { hideBin } from "yargs/helpers"
import { acpCommand } from "./cmd/acp"
import { attachCommand } from "./cmd/attach"
import { authCommand } from "./cmd/auth"
import { debugCommand } from "./cmd/debug"
import { agentCommand, exportCommand, importCommand, modelsCommand, sessionCommand, statsCommand } from "./cmd/manage"
import { githubCommand } from "./cmd/github"
import { mcpCommand } from "./cmd/mcp"
import { runCommand } from "./cmd/run"
import { serveCommand } from "./cmd/serve"
import { webCommand } from "./cmd/web"
import { trustCommand } from "./cmd/trust"
import { pluginCommand } from "./cmd/plugin"
import { tuiCommand } from "./cmd/tui"
import { worktreeCommand } from "./cmd/worktree"
import { psCommand } from "./cmd/ps"
import { fail, VERSION } from "./ui"
import { checkCommandWord } from "./unknown-command"

const COMMANDS = [runCommand, serveCommand, webCommand, tuiCommand, attachCommand, modelsCommand, sessionCommand, exportCommand, importCommand, statsCommand, agentCommand, acpCommand, trustCommand, pluginCommand, authCommand, mcpCommand, githubCommand, debugCommand, worktreeCommand, psCommand]

/**
 * A reader that went away (`wright models | head -1`) ends the output, as it ends any Unix
 * tool's: quietly, exit 0. The TUI owns its terminal and handles its own hangup.
 */
function quietOnClosedPipe() {
  if (process.stdout.isTTY) return
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0)
    void fail(e)
  })
}

async function main() {
  quietOnClosedPipe()
  const names = COMMANDS.map((c) => String(c.command).split(" ")[0]!).filter((n) => n !== "$0")
  await checkCommandWord(hideBin(process.argv), [...names, "completion"])
  const cli = yargs(hideBin(process.argv))
    .scriptName("wright")
    .usage("$0 [command]\n\nA terminal coding agent. `wright` opens the interactive UI in the current project; `wright run \"…\"` does one task and exits; `wright serve` serves the HTTP API.")
    .version(VERSION)
    .alias("v", "version")
    .help()
    .alias("h", "help")
    .option("print-logs", { type: "boolean", describe: "also print the log to stderr (it is always written to ~/.local/state/wright/log/)" })
    .option("log-level", { choices: ["DEBUG", "INFO", "WARN", "ERROR"] as const, coerce: (v: string) => v.toUpperCase(), describe: "least severe log lines kept (default: logLevel in the config, else INFO)" })
    .option("trust", { type: "boolean", describe: "apply this folder's own config in full for this run, trusted or not (also WRIGHT_TRUST=1)" })
    .option("pure", { type: "boolean", describe: "run without plugins, custom tools and command hooks (also WRIGHT_PURE=1 or OPENCODE_PURE=1)" })
    // Every command, the TUI's worker and `serve`'s Apps read it from the environment.
    .middleware((argv) => {
      if (argv.trust) process.env.WRIGHT_TRUST = "1"
      if (argv.pure) process.env.WRIGHT_PURE = "1"
    })
    .command(COMMANDS as CommandModule[])
    // `wright completion >> ~/.bashrc` (or ~/.zshrc): bash and zsh completion of commands and flags.
    .completion("completion", "print a shell completion script (bash or zsh): wright completion >> ~/.bashrc", (_current: string, _argv: unknown, defaults: (cb: (err: Error | null, list?: string[]) => void) => void, done: (list: string[]) => void) =>
      // The default command's "$0" is not a word to type.
      defaults((_err, list) => done((list ?? []).filter((word) => word !== "$0" && !word.startsWith("$0:")))),
    )
    .strict()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err, y: Argv) => {
      if (err) throw err
      y.showHelp("error")
      process.stderr.write(`\n${msg}\n`)
      process.exit(1)
    })
  // yargs renders and caches a command's whole help text as its handler starts (~25 ms on this
  // machine), to show it should the handler fail through yargs; ours report their own errors.
  const usage = (cli as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } }).getInternalMethods?.().getUsageInstance?.()
  if (usage?.cacheHelpMessage) usage.cacheHelpMessage = () => {}
  await cli.parseAsync()
}

main().catch(fail)

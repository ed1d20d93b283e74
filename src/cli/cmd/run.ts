import type { CommandModule } from "yargs"
import type { RunArgs } from "../args"

/** The exit codes of `wright run`, as `--help` shows them. */
const EXIT_CODES = `Exit codes:
  0    the agent finished
  1    an error (bad input, provider or tool failure), or a refused permission
  124  stopped by --timeout (the session aborted, its tool calls settled)
  130  interrupted (Ctrl+C)`

export const runCommand: CommandModule<object, RunArgs> = {
  command: "run [message..]",
  describe: "run one task and exit when the agent is done",
  builder: (y) =>
    y
      .positional("message", { type: "string", array: true, default: [], describe: "the prompt. Piped stdin is appended when it arrives at once; with a - among the words, or no message, it is read to its end. Put -- before a message that starts with -" })
      .option("model", { alias: "m", type: "string", describe: "model as provider/model" })
      .option("agent", { type: "string", describe: "primary agent to use (default: build)" })
      .option("file", { alias: "f", type: "string", array: true, describe: "attach a file (repeatable)" })
      .option("format", { choices: ["default", "json"] as const, default: "default" as const, describe: "json: one JSON event per line" })
      .option("continue", { alias: "c", type: "boolean", describe: "continue the most recent session" })
      .option("session", { alias: "s", type: "string", describe: "continue the session with this id" })
      .option("resume", { type: "string", describe: "carry on the session with this id where a crashed wright left it (no new prompt); with -c or --session and no message, the same" })
      .option("dir", { type: "string", describe: "project directory (default: the current one)" })
      .option("worktree", { alias: "w", type: "string", describe: "run in a new git worktree on branch wright/<name> (no name: a generated one); the main checkout is not touched. See wright worktree" })
      .option("attach", { type: "string", describe: "send the run to a running `wright serve` at this URL" })
      .option("password", { alias: "p", type: "string", describe: "password for --attach; visible to other users in ps, prefer $WRIGHT_SERVER_PASSWORD or $WRIGHT_SERVER_PASSWORD_FILE" })
      .option("username", { alias: "u", type: "string", describe: "username for --attach (default: $WRIGHT_SERVER_USERNAME or wright)" })
      .option("auto", { alias: "dangerously-skip-permissions", type: "boolean", describe: "approve every permission ask once (explicit denies still hold; running a command outside the sandbox needs a sandbox_escape rule)" })
      .option("title", { type: "string", describe: "title of a new session" })
      .option("command", { type: "string", describe: "run a slash command; the message becomes its arguments" })
      .option("schema", { type: "string", describe: "JSON Schema file: the answer must match it and is printed alone" })
      .option("thinking", { type: "boolean", describe: "show reasoning" })
      .option("variant", { type: "string", describe: "model variant: provider reasoning effort, e.g. high, max, minimal" })
      .option("timeout", { type: "number", describe: "wall-clock budget in seconds: past it the run is stopped (exit 124)" })
      .option("steer", { type: "boolean", describe: "with -c/--session: if the session is busy (another process runs it), the model sees the message before its next step; the run exits once it is stored" })
      .option("queue", { type: "boolean", describe: "with -c/--session: if the session is busy, the message runs as a new turn when it is done; the run exits once it is stored" })
      .conflicts("steer", "queue")
      .option("detach", { type: "boolean", describe: "exit when the agent's turn ends, without waiting for its background subagents (a local run then stops them; a server (--attach) keeps them running)" })
      .epilog(EXIT_CODES) as never,
  handler: async (args) => {
    const { run } = await import("../run/execute")
    // Words after `--` (OpenCode's and Harbor's `run … -- "<task>"`) are the message too.
    const rest = ((args as { _?: unknown[] })._ ?? []).slice(1).map(String)
    // yargs drops a lone `-` (stdin, as for cat): find it in the words before any `--`.
    const words = process.argv.slice(2)
    const dash = (words.includes("--") ? words.slice(0, words.indexOf("--")) : words).includes("-")
    await run({ ...args, message: [...args.message, ...rest, ...(dash ? ["-"] : [])] })
    // Idle keep-alive sockets and background timers must not hold the finished run open,
    // but everything written must reach a pipe first, however slowly it is read.
    await Promise.all([drained(process.stdout), drained(process.stderr)])
    process.exit(process.exitCode ?? 0)
  },
}

function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()))
}

// Which handler knows a command's behaviour beyond its name: bash-runners (wrappers and
// builtins that run other code), bash-interpreters (shells, python, node, …),
// bash-packages (npx, uv run, …), bash-programs (options that run code), bash-files (paths),
// bash-reads (commands that read the files they are given).
import { FILE_COMMANDS } from "./bash-files"
import { SHELLS, interpreter, isInterpreter, powershell, shell } from "./bash-interpreters"
import { PACKAGE_RUNNERS } from "./bash-packages"
import { PROGRAMS } from "./bash-programs"
import { READ_COMMANDS } from "./bash-reads"
import { RUNNERS } from "./bash-runners"
import type { Handler } from "./bash-types"

export type { Analyzer, Io, Outcome } from "./bash-types"
export { commandVariable, dangerousVariable } from "./bash-types"

const TABLES: Record<string, Handler>[] = [FILE_COMMANDS, RUNNERS, PACKAGE_RUNNERS, PROGRAMS, READ_COMMANDS, { pwsh: powershell, powershell }]

export function handlerFor(name: string): Handler | undefined {
  for (const table of TABLES) if (Object.hasOwn(table, name)) return table[name]
  if (SHELLS.includes(name)) return shell
  if (isInterpreter(name)) return interpreter
  return undefined
}

// Commands whose operands are never paths: their text is not checked against the project.
const NOT_PATHS = new Set(["echo", "printf", "true", "false", ":", "test", "[", "export", "local", "declare", "typeset", "readonly", "unset", "set", "shopt", "alias", "unalias", "type", "which", "hash", "command", "read", "let", "getopts", "return", "exit", "break", "continue", "shift", "trap", "wait", "kill", "sleep", "seq", "expr", "date"])

/** The command's handler checks the paths of its operands itself (file commands, readers), or it takes none. */
export function checksOwnPaths(name: string): boolean {
  return Object.hasOwn(FILE_COMMANDS, name) || Object.hasOwn(READ_COMMANDS, name) || NOT_PATHS.has(name)
}

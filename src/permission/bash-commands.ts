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
export { dangerousVariable } from "./bash-types"

const TABLES: Record<string, Handler>[] = [FILE_COMMANDS, RUNNERS, PACKAGE_RUNNERS, PROGRAMS, READ_COMMANDS, { pwsh: powershell, powershell }]

export function handlerFor(name: string): Handler | undefined {
  for (const table of TABLES) if (Object.hasOwn(table, name)) return table[name]
  if (SHELLS.includes(name)) return shell
  if (isInterpreter(name)) return interpreter
  return undefined
}

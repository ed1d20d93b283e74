// Which handler knows a command's behaviour beyond its name. See bash-runners (commands
// that run other code), bash-programs (options that run code) and bash-files (paths).
import { FILE_COMMANDS } from "./bash-files"
import { PROGRAMS } from "./bash-programs"
import { RUNNERS, interpreter, isInterpreter } from "./bash-runners"
import type { Handler } from "./bash-types"

export type { Analyzer, Io, Outcome } from "./bash-types"
export { dangerousVariable } from "./bash-types"

export function handlerFor(name: string): Handler | undefined {
  if (Object.hasOwn(FILE_COMMANDS, name)) return FILE_COMMANDS[name]
  if (Object.hasOwn(RUNNERS, name)) return RUNNERS[name]
  if (Object.hasOwn(PROGRAMS, name)) return PROGRAMS[name]
  if (isInterpreter(name)) return interpreter
  return undefined
}

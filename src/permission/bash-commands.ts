// Which handler knows a command's behaviour beyond its name. See bash-runners (commands
// that run other code) and bash-files (commands that take paths).
import { FILE_COMMANDS } from "./bash-files"
import { RUNNERS, interpreter, isInterpreter } from "./bash-runners"
import type { Handler } from "./bash-types"

export type { Analyzer, Io, Outcome } from "./bash-types"
export { dangerousVariable } from "./bash-types"

export function handlerFor(name: string): Handler | undefined {
  if (Object.hasOwn(FILE_COMMANDS, name)) return FILE_COMMANDS[name]
  if (Object.hasOwn(RUNNERS, name)) return RUNNERS[name]
  if (isInterpreter(name)) return interpreter
  return undefined
}

// `wright [project]` is the default command: its first word may be a command or a directory.
// A first word that is neither (no such command, nothing there on disk, not written as a path)
// is a mistyped command: say so and name the closest one, before yargs reads it as a project
// (`wright modles`: "project: not a directory") or blames the next word (`wright rnu hi`).
import { existsSync } from "node:fs"
import path from "node:path"
import { UserError } from "./ui"

/** Throws a UserError naming the closest command when `argv`'s first word is a mistyped one. */
export async function checkCommandWord(argv: string[], commands: string[], cwd = process.cwd()): Promise<void> {
  const word = argv[0]
  if (word === undefined || word === "" || word.startsWith("-") || commands.includes(word)) return
  // Written as a path, or something is there: the default command's project, which says what is wrong with it.
  if (/[/\\~.]/.test(word) || existsSync(path.resolve(cwd, word))) return
  // Loaded only here: nothing of llm/ on the way to a command that exists.
  const { suggest } = await import("../llm")
  const [close] = suggest(word, commands, 1)
  if (close) throw new UserError(`Unknown command '${word}'. Did you mean '${close}'?`)
  throw new UserError(`Unknown command '${word}', and not a directory: ${path.resolve(cwd, word)}. Commands: ${commands.join(", ")} (wright --help says more).`)
}

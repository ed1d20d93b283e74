// Shared shapes of the bash analysis: how a command is run (its input), what a command
// handler may ask of the analyzer, and what it answers.
import type { Word } from "./bash-words"

export interface Io {
  /** Where standard input comes from, when the command reads it. */
  stdin?: { kind: "pipe" } | { kind: "file"; word?: Word } | { kind: "text"; text?: string }
  /** `xargs` appends words read from its input. */
  extraArgs?: boolean
  /** Inside `find -exec`: `{}` stands for paths under find's start paths. */
  findPaths?: boolean
  /** `xargs -I STR`: STR in the command's words is replaced by text read from input. */
  replace?: string
}

export interface Analyzer {
  unknown(reason: string): void
  checkPath(word: Word, opts?: { dir?: boolean; io?: Io }): void
  /** A file this command reads: it is asked as `read` (literal and resolved path), like the read tool. */
  read(word: Word, opts?: { io?: Io }): void
  /** Runs `cd`: the following commands may run in `target`. */
  changeDir(target: Word | undefined): void
  /** Shell source found inside a command; `sameShell` when it runs in this shell (eval, source). */
  script(text: string, sameShell?: boolean): void
  /** A command implied by another one (find -delete removes files like rm). */
  implied(tokens: string[]): void
  /** A command found inside another one's arguments (find -exec … ;). */
  run(words: Word[], io: Io): void
  /** A file this command line writes (redirections, tee, cp/mv destinations). */
  wrote(word: Word): void
  /** `python -m NAME`: asks when NAME is a module in the current directory (a file the session may have written). */
  localModule(name: string, what: string): void
  /** The command changes the repository's own git configuration (`git config key value`). */
  gitConfig(): void
  /** Literal text bash evaluates as arithmetic (`let`): unknown unless it is plainly harmless. */
  arithmeticText(text: string, what: string): void
  /** A builtin sets the variable `name` (read, mapfile, printf -v, wait -p): asks when it is declared integer. */
  setsVariable(name: string, what: string): void
  /** True when `word` names a file written earlier in this command line. */
  runsWritten(word: Word): boolean
  /** True when the file at `absPath` was written by this wright (a tool, an earlier command) or earlier in this command line. */
  writtenFile(absPath: string): boolean
  /** The directories the command may run in (several after a `cd` that may fail); undefined when only known at run time. */
  dirs(): string[] | undefined
}

export interface Outcome {
  /** Index of the word where a wrapped command starts. */
  inner?: number
  /** How the wrapped command runs, when it differs from the wrapper (xargs adds arguments). */
  innerIo?: Io
  /** Leave the command out of the bash patterns (a plain `cd`). */
  skip?: boolean
}

export type Handler = (words: Word[], a: Analyzer, io: Io) => Outcome | void

export function describe(word: Word | undefined): string {
  return word ? word.raw : "(missing)"
}

const DANGEROUS_ENV = new Set([
  "PATH", "IFS", "ENV", "BASH_ENV", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "HOME", "CDPATH", "ZDOTDIR",
  "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB", "VISUAL", "BROWSER",
  "SHELL", "XDG_CONFIG_HOME", "GCONV_PATH", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_EXEC_PATH", "GIT_DIR", "GIT_WORK_TREE",
  "LESSOPEN", "LESSCLOSE", "RSYNC_RSH", "CVS_RSH", "MANOPT", "MAKEFILES", "MAKEFLAGS",
])
const DANGEROUS_PREFIX = ["LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG", "npm_config_", "NPM_CONFIG_"]
const DANGEROUS_SUFFIX = ["_COMMAND", "_OPTIONS", "OPT", "OPTS", "PAGER", "EDITOR", "ASKPASS"]

/** Variables that change which programs run or how (PATH, LD_PRELOAD, GIT_SSH_COMMAND, …). */
export function dangerousVariable(name: string): boolean {
  return DANGEROUS_ENV.has(name) || DANGEROUS_PREFIX.some((p) => name.startsWith(p)) || DANGEROUS_SUFFIX.some((s) => name.endsWith(s))
}

const COMMAND_ENV = new Set(["GIT_EXTERNAL_DIFF", "GIT_SSH", "VISUAL", "BROWSER"])

/**
 * Variables whose value is a command line programs run (GIT_SSH_COMMAND, GIT_PAGER, EDITOR,
 * GIT_EXTERNAL_DIFF, …): a literal value is analysed as shell code instead of asked about.
 */
export function commandVariable(name: string): boolean {
  return COMMAND_ENV.has(name) || ["_COMMAND", "PAGER", "EDITOR", "ASKPASS"].some((s) => name.endsWith(s))
}

export const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=/


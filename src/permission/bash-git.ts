// git: options and subcommands that run shell code (`-c`, `--upload-pack=`, `rebase --exec`,
// `bisect run`, `submodule foreach`, `git config` writes), and what the repository will run:
// settings given with `-c` or held in a config file this wright wrote, and hooks it wrote
// (bash-git-config.ts reads them).
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { type Repository, findRepository, gitHook, gitSetting, parseGitConfig } from "./bash-git-config"
import { readProjectFile, sessionWrote } from "./bash-scripts"
import type { Analyzer, Handler } from "./bash-types"
import { type Word, literalWord } from "./bash-words"

function runCode(a: Analyzer, what: string, code: Word | undefined): void {
  if (code?.value === undefined) a.unknown(`${what} runs code only known at run time`)
  else a.script(code.value)
}

/** `-c key=value`: the key's section and name lower-cased, its subsection kept. */
function commandLineSetting(text: string): { key: string; value: string } {
  const eq = text.indexOf("=")
  const key = eq < 0 ? text : text.slice(0, eq)
  const parts = key.split(".")
  const lower = parts.length < 2 ? key.toLowerCase() : [parts[0].toLowerCase(), ...parts.slice(1, -1), parts[parts.length - 1].toLowerCase()].join(".")
  return { key: lower, value: eq < 0 ? "" : text.slice(eq + 1) }
}

export const git: Handler = (words, a) => {
  let i = 1
  const where = { dirs: [] as string[], gitDir: undefined as string | undefined }
  for (; i < words.length; i++) {
    const v = words[i].value
    if (v === undefined || !v.startsWith("-")) break
    if (v === "-c" || v.startsWith("-c")) {
      const setting = v === "-c" ? words[++i]?.value : v.slice(2)
      if (setting === undefined) a.unknown("git -c sets an option only known at run time")
      else if (gitSetting(commandLineSetting(setting), a, "-c", true) !== undefined) a.unknown(`git -c ${setting} runs hooks from a directory named on the command line, which are not analysed`)
    } else if (v.startsWith("--config-env")) {
      a.unknown(`git ${v} can set options that run programs (core.pager, aliases, core.sshCommand)`)
      if (v === "--config-env") i++
    } else if (v.startsWith("--exec-path")) {
      a.unknown(`git --exec-path changes which programs git runs`)
    } else if (v === "-C" || v === "--git-dir" || v === "--work-tree") {
      const dir = words[++i]
      if (dir) a.checkPath(dir, { dir: true })
      locate(where, v, dir?.value)
    } else if (v.startsWith("--git-dir=") || v.startsWith("--work-tree=")) {
      a.checkPath(literalWord(v.slice(v.indexOf("=") + 1)), { dir: true })
      locate(where, v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1))
    } else if (["--namespace", "--attr-source", "--super-prefix"].includes(v)) {
      i++
    }
  }
  const sub = words[i]?.value
  const rest = words.slice(i + 1)
  const repos = repositories(where, a)
  for (const repo of repos) repositoryCode(repo, a)
  for (const [at, word] of rest.entries()) {
    const v = word.value ?? ""
    const eq = v.indexOf("=")
    const name = eq > 0 ? v.slice(0, eq) : v
    // git's parse-options takes any unambiguous prefix of a long option (`--upload-pa=`).
    const code = name.startsWith("--") && name.length > 3 && GIT_CODE_OPTIONS.find((o) => o.startsWith(name))
    if (code || (sub === "rebase" && name === "-x") || (sub === "clone" && name === "-u")) {
      runCode(a, `git ${sub} ${name}`, eq > 0 ? literalWord(v.slice(eq + 1)) : rest[at + 1])
    }
    if (sub === "grep" && (name.startsWith("-O") || (name.startsWith("--op") && "--open-files-in-pager".startsWith(name)))) {
      a.unknown(`git grep ${name} opens the files in a program named on the command line`)
    }
  }
  if (sub === "config") gitConfig(rest, a, repos)
  // git clean -f deletes untracked files, as rm would.
  if (sub === "clean" && rest.some((w) => /^-[a-zA-Z]*f/.test(w.value ?? "") || w.value === "--force") && !rest.some((w) => /^-[a-zA-Z]*n/.test(w.value ?? "") || w.value === "--dry-run")) {
    const paths = rest.filter((w) => w.value !== undefined && !w.value.startsWith("-")).map((w) => w.value!)
    a.implied(["rm", ...(paths.length ? paths : ["."])])
  }
  if (sub === "bisect" && rest[0]?.value === "run" && rest.length > 1) return { inner: i + 2 }
  if (sub === "submodule" && rest.some((w) => w.value === "foreach")) {
    const code = rest.slice(rest.findIndex((w) => w.value === "foreach") + 1).filter((w) => !w.value?.startsWith("--"))
    if (code.some((w) => w.value === undefined)) a.unknown("git submodule foreach runs code only known at run time")
    else if (code.length) a.script(code.map((w) => w.value).join(" "))
  }
  if (sub === "filter-branch" || sub === "difftool" || sub === "mergetool") {
    if (rest.some((w) => /^(--[a-z-]*-filter|-x|--extcmd)/.test(w.value ?? "-x"))) a.unknown(`git ${sub} runs programs named on the command line`)
  }
}

const GIT_CODE_OPTIONS = ["--upload-pack", "--receive-pack", "--exec", "--extcmd"]

// `git config` forms that change the configuration, not those that only read it.
const GIT_CONFIG_READ = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "-l", "--list", "--show-origin", "--show-scope", "--name-only", "-z", "--null", "--type", "--bool", "--int", "--bool-or-int", "--path", "--expiry-date", "--default", "--includes", "--no-includes"]
const GIT_CONFIG_WRITE = ["--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit"]

function gitConfig(rest: Word[], a: Analyzer, repos: Repository[]): void {
  let scope: "local" | "global" | "system" | "file" = "local"
  let file: Word | undefined
  let write = false
  const operands: Word[] = []
  for (let i = 0; i < rest.length; i++) {
    const v = rest[i].value
    if (v === undefined) {
      a.unknown(`git config ${rest[i].raw} is only known at run time`)
      write = true
      continue
    }
    if (v === "--global") scope = "global"
    else if (v === "--system") scope = "system"
    else if (v === "--local" || v === "--worktree") scope = "local"
    else if (v === "-f" || v === "--file" || v === "--blob") {
      scope = v === "--blob" ? scope : "file"
      file = v === "--blob" ? undefined : rest[i + 1]
      i++
    } else if (v.startsWith("--file=")) {
      scope = "file"
      file = literalWord(v.slice(7))
    } else if (GIT_CONFIG_WRITE.some((o) => o === v || (v.length > 3 && o.startsWith(v)))) write = true
    else if (GIT_CONFIG_READ.some((o) => o === v || v.startsWith(`${o}=`) || (v.length > 3 && o.startsWith(v)))) {
      if (["--type", "--default"].includes(v)) i++
    } else if (!v.startsWith("-")) operands.push(rest[i])
  }
  // New-style subcommands: `git config set|unset|rename-section|remove-section|edit …`; `get`/`list` read.
  const sub = operands[0]?.value
  if (sub && ["set", "unset", "rename-section", "remove-section", "edit"].includes(sub)) write = true
  else if (sub && !["get", "list"].includes(sub) && operands.length >= 2) write = true
  if (!write) return
  // The file written is remembered, so the next git command reads what it now holds.
  if (scope === "global") {
    a.checkPath(literalWord("~/.gitconfig"))
    a.wrote(literalWord("~/.gitconfig"))
  } else if (scope === "system") a.checkPath(literalWord("/etc/gitconfig"))
  else if (scope === "file" && file) {
    a.checkPath(file)
    a.wrote(file)
  } else {
    a.gitConfig()
    for (const repo of repos) a.wrote(literalWord(path.join(repo.common, "config")))
  }
}

interface Where {
  /** `-C` directories, in order. */
  dirs: string[]
  gitDir?: string
  unknown?: boolean
}

function locate(where: Where, option: string, value: string | undefined): void {
  if (value === undefined) where.unknown = true
  else if (option === "-C") where.dirs.push(value)
  else if (option === "--git-dir") where.gitDir = value
}

/** The repositories the command may act on (one per directory it may run in). */
function repositories(where: Where, a: Analyzer): Repository[] {
  const dirs = a.dirs()
  if (where.unknown || !dirs) {
    a.unknown("git runs in a directory only known at run time, whose settings and hooks cannot be read")
    return []
  }
  const out: Repository[] = []
  for (const cwd of dirs) {
    const start = where.dirs.reduce((d, c) => path.resolve(d, c), cwd)
    if (where.gitDir === undefined) {
      const repo = findRepository(start)
      if (repo) out.push(repo)
      continue
    }
    const gitDir = path.resolve(start, where.gitDir)
    out.push({ gitDir, common: gitDir, top: start })
  }
  return out
}

const GLOBAL_CONFIGS = () => [path.join(os.homedir(), ".gitconfig"), path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config"), "git", "config")]

/**
 * What the repository will run that this wright wrote: settings in a config file it wrote,
 * and hooks (every hook in a hooks directory such a config names, else the hooks it wrote).
 */
function repositoryCode(repo: Repository, a: Analyzer): void {
  let hooksPath: string | undefined
  let hooksFromSession = false
  const local = path.join(repo.common, "config")
  for (const file of [local, path.join(repo.gitDir, "config.worktree"), ...GLOBAL_CONFIGS()]) {
    const written = sessionWrote(a, file)
    // The repository's own config is read for core.hooksPath alone, written or not.
    if (!written && file !== local) continue
    const text = written ? readProjectFile(file, a, "git reads") : safeRead(file)
    for (const setting of parseGitConfig(text ?? "")) {
      if (written) {
        const hooks = gitSetting(setting, a, `config ${file}:`, false)
        if (hooks !== undefined) [hooksPath, hooksFromSession] = [hooks, true]
      } else if (setting.key === "core.hookspath") [hooksPath, hooksFromSession] = [setting.value, false]
    }
  }
  const dir = hooksPath ? path.resolve(repo.top, hooksPath.replace(/^~(?=\/|$)/, os.homedir())) : path.join(repo.common, "hooks")
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const file = path.join(dir, name)
    if (!name.endsWith(".sample") && (hooksFromSession || sessionWrote(a, file))) gitHook(file, a)
  }
}

function safeRead(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}


// Programs whose options or subcommands run shell code: git (`-c`, `--upload-pack=`,
// `rebase --exec`, `bisect run`, `submodule foreach`), tar `--to-command`, rsync `-e`,
// ssh `-o ProxyCommand=`, sort `--compress-program`, make `--eval`, and editors. The
// code is analysed like a `bash -c` string when it is literal, and is unknowable otherwise.
import { reader } from "./bash-reads"
import { make } from "./bash-scripts"
import type { Analyzer, Handler } from "./bash-types"
import { type Word, literalWord, operands } from "./bash-words"

function runCode(a: Analyzer, what: string, code: Word | undefined): void {
  if (code?.value === undefined) a.unknown(`${what} runs code only known at run time`)
  else a.script(code.value)
}

const git: Handler = (words, a) => {
  let i = 1
  for (; i < words.length; i++) {
    const v = words[i].value
    if (v === undefined || !v.startsWith("-")) break
    if (v === "-c" || v.startsWith("-c") || v.startsWith("--config-env")) {
      a.unknown(`git ${v} can set options that run programs (core.pager, aliases, core.sshCommand)`)
      if (v === "-c" || v === "--config-env") i++
    } else if (v.startsWith("--exec-path")) {
      a.unknown(`git --exec-path changes which programs git runs`)
    } else if (v === "-C" || v === "--git-dir" || v === "--work-tree") {
      if (words[i + 1]) a.checkPath(words[++i], { dir: true })
    } else if (v.startsWith("--git-dir=") || v.startsWith("--work-tree=")) {
      a.checkPath(literalWord(v.slice(v.indexOf("=") + 1)), { dir: true })
    } else if (["--namespace", "--attr-source", "--super-prefix"].includes(v)) {
      i++
    }
  }
  const sub = words[i]?.value
  const rest = words.slice(i + 1)
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
  if (sub === "config") gitConfig(rest, a)
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

function gitConfig(rest: Word[], a: Analyzer): void {
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
  if (scope === "global") a.checkPath(literalWord("~/.gitconfig"))
  else if (scope === "system") a.checkPath(literalWord("/etc/gitconfig"))
  else if (scope === "file" && file) {
    a.checkPath(file)
    a.wrote(file)
  } else a.gitConfig()
}

// tar's `--checkpoint-action=exec=CMD` runs CMD; its other actions only print or wait.
function checkpointAction(a: Analyzer, value: Word | undefined): void {
  const v = value?.value
  if (v === undefined) return a.unknown("tar --checkpoint-action is only known at run time")
  const m = /^exec=(.*)$/s.exec(v)
  if (m) a.script(m[1])
  else if (!/^(bell|dot|\.|echo|echo=.*|ttyout=.*|totals|wait=.*|sleep=.*)$/s.test(v)) a.unknown(`tar --checkpoint-action=${v} may run a program`)
}

const TAR_LONG = ["--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command", "--directory", "--file", "--index-file", "--exclude-from", "--files-from"]
const TAR_CODE = ["-I", "-F", "--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command"]

const tar: Handler = (words, a, io) => {
  // Old style: `tar xIf cmd a.tar`, the letters' values following in order.
  const first = words[1]?.value
  if (first !== undefined && /^[A-Za-z]+$/.test(first) && /[IF]/.test(first)) a.unknown(`tar ${first} names a program to run in its old-style options`)
  const { options } = operands(words, 1, "IFfCbHKLNVgT", TAR_LONG, ["--checkpoint", "--exclude", "--to-stdout", "--totals", "--verbose", "--verify"])
  for (const option of options) {
    if (TAR_CODE.includes(option.name)) runCode(a, `tar ${option.name}`, option.value)
    if (option.name === "--checkpoint-action") checkpointAction(a, option.value)
    if (["-C", "--directory", "-f", "--file", "--index-file", "-T", "--files-from", "--exclude-from"].includes(option.name) && option.value) a.checkPath(option.value, { io })
  }
}

// zip's `-TT cmd` / `--unzip-command cmd` tests the archive with a command of the caller's choosing.
const zip: Handler = (words, a) => {
  for (let i = 1; i < words.length; i++) {
    const v = words[i].value
    if (v === undefined) continue
    if (/^-[^-]*TT/.test(v)) {
      const attached = v.slice(v.indexOf("TT") + 2).replace(/^=/, "")
      runCode(a, "zip -TT", attached ? literalWord(attached) : words[i + 1])
    } else if (v.startsWith("--un") && "--unzip-command".startsWith(v.split("=")[0])) {
      runCode(a, "zip --unzip-command", v.includes("=") ? literalWord(v.slice(v.indexOf("=") + 1)) : words[i + 1])
    }
  }
}

// Commands with options whose value is a command line (`code`) or a path (`paths`);
// `localOperands` checks operands that are not `host:path` as paths too. Long options may be
// abbreviated, as getopt_long allows.
function codeOptions(shortValue: string, longValue: string[], code: string[], paths: string[] = [], localOperands = false): Handler {
  return (words, a, io) => {
    const { options, operands: rest } = operands(words, 1, shortValue, longValue, [])
    for (const option of options) {
      if (code.includes(option.name)) runCode(a, `${words[0].value} ${option.name}`, option.value)
      if (paths.includes(option.name) && option.value) a.checkPath(option.value, { io })
    }
    if (localOperands) for (const word of rest) if (!/^[^/]*:/.test(word.value ?? "")) a.checkPath(word, { io })
  }
}

const SSH_CODE = /^(proxycommand|localcommand|knownhostscommand)\s*=?\s*/i

const ssh: Handler = (words, a) => {
  const { options } = operands(words, 1, "oSbcDEeFIiJLlmOpQRWw")
  for (const option of options) {
    const v = option.value?.value
    if (option.name === "-S" && words[0].value !== "ssh") runCode(a, `${words[0].value} -S`, option.value)
    if (option.name === "-F") a.unknown(`${words[0].value} -F reads a config that can run commands`)
    if (option.name !== "-o") continue
    if (v === undefined) a.unknown(`${words[0].value} -o sets an option only known at run time`)
    else if (SSH_CODE.test(v)) runCode(a, `${words[0].value} -o ${v.split(/[=\s]/)[0]}`, literalWord(v.replace(SSH_CODE, "")))
  }
}

// sqlite3's dot-commands `.shell`/`.system` run shell code; `.once |cmd`, `.output |cmd`,
// `.read |cmd` and `.import |cmd` pipe through a command; `.load` and load_extension() load
// native code; edit() runs an editor named in the SQL; writefile() writes any file.
function sqliteText(text: string, a: Analyzer): void {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    const dot = /^\.([a-z]+)\s*(.*)$/is.exec(line)
    if (dot) {
      const [, command, rest] = dot
      if (/^(shell|system)$/i.test(command)) a.script(rest)
      else {
        const pipes = /^(once|output|read|import|log)$/i.test(command) && /(^|\s)['"]?\|/.test(rest)
        const opens = (/^(once|output)$/i.test(command) && /(^|\s)-[ex]\b/.test(rest)) || /^excel$/i.test(command)
        if (pipes || opens || /^load$/i.test(command)) a.unknown(`sqlite3 .${command} ${rest} runs a program or loads code`)
      }
    } else if (/\b(edit|load_extension|writefile)\s*\(/i.test(line)) a.unknown(`sqlite3 runs SQL that calls ${/\b(edit|load_extension|writefile)\s*\(/i.exec(line)![1]}(), which runs programs or writes files`)
  }
}

const SQLITE_VALUE = ["-cmd", "-init", "-separator", "-newline", "-nullvalue", "-mmap", "-lookaside", "-pagecache", "-heap", "-maxsize", "-vfs", "-escape"]

const sqlite3: Handler = (words, a, io) => {
  const rest: Word[] = []
  for (let i = 1; i < words.length; i++) {
    const v = words[i].value
    const option = v?.replace(/^--/, "-")
    if (v === undefined) {
      a.unknown(`sqlite3 is given ${words[i].raw}, only known at run time`)
      rest.push(words[i])
    } else if (option === "-cmd") runSql(a, words[++i])
    else if (option === "-init") a.unknown("sqlite3 -init reads commands from a file, which are not analysed")
    else if (option !== undefined && SQLITE_VALUE.includes(option)) i++
    else if (!v.startsWith("-") || rest.length > 0) rest.push(words[i])
  }
  if (rest[0]) a.checkPath(rest[0], { io })
  for (const sql of rest.slice(1)) runSql(a, sql)
  if (rest.length > 1) return
  const stdin = io.stdin
  if (stdin?.kind === "text" && stdin.text !== undefined) sqliteText(stdin.text, a)
  else if (stdin?.kind === "pipe" || stdin?.kind === "text") a.unknown("sqlite3 runs commands read from its standard input, which may run programs (.shell)")
  else if (stdin?.kind === "file" && stdin.word && a.runsWritten(stdin.word)) a.unknown(`sqlite3 runs commands from ${stdin.word.raw}, a file written in this session`)
}

function runSql(a: Analyzer, sql: Word | undefined): void {
  if (sql?.value === undefined) a.unknown("sqlite3 runs SQL only known at run time")
  else sqliteText(sql.value, a)
}

// man's pager (-P, --pager) and browser (-H, --html=) are commands it runs through the shell.
const man: Handler = (words, a) => {
  const { options } = operands(words, 1, "CMPrLmSsepER", ["--pager", "--config-file", "--manpath", "--prompt", "--locale", "--systems", "--sections", "--extension", "--preprocessor", "--encoding", "--recode"])
  for (const o of options) if (o.name === "-P" || o.name === "--pager") runCode(a, `man ${o.name}`, o.value)
  for (const w of words) {
    const browser = /^(?:-[a-zA-Z]*H|--html=)(.+)$/.exec(w.value ?? "")?.[1]
    if (browser) runCode(a, "man --html", literalWord(browser))
  }
}

const editor: Handler = (words, a) => {
  if (words.length > 1) a.unknown(`${words[0].value} can run shell commands from its arguments`)
}

export const PROGRAMS: Record<string, Handler> = {
  git,
  tar,
  rsync: codeOptions("eBfT", ["--rsh", "--rsync-path", "--filter", "--exclude", "--include"], ["-e", "--rsh", "--rsync-path"], [], true),
  ssh,
  scp: ssh,
  sftp: ssh,
  zip,
  sort: (words, a, io) => {
    const long = ["--compress-program", "--key", "--output", "--field-separator", "--temporary-directory", "--buffer-size", "--files0-from", "--random-source"]
    codeOptions("kotST", long, ["--compress-program"], ["-o", "--output", "-T", "--temporary-directory", "--random-source"])(words, a, io)
    for (const o of operands(words, 1, "kotST", long, []).options) if ((o.name === "-o" || o.name === "--output") && o.value) a.wrote(o.value)
    reader({ shortValue: "kotST", longValue: long, readOptions: ["--files0-from"] })(words, a, io)
  },
  make,
  sqlite3,
  man,
}

for (const name of ["vi", "vim", "nvim", "ex", "view", "emacs", "ed"]) PROGRAMS[name] = editor

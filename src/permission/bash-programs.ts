// Programs whose options or subcommands run shell code: git (`-c`, `--upload-pack=`,
// `rebase --exec`, `bisect run`, `submodule foreach`), tar `--to-command`, rsync `-e`,
// ssh `-o ProxyCommand=`, sort `--compress-program`, make `--eval`, and editors. The
// code is analysed like a `bash -c` string when it is literal, and is unknowable otherwise.
import { git } from "./bash-git"
import { reader } from "./bash-reads"
import { make } from "./bash-scripts"
import type { Analyzer, Handler } from "./bash-types"
import { type Word, literalWord, operands } from "./bash-words"

function runCode(a: Analyzer, what: string, code: Word | undefined): void {
  if (code?.value === undefined) a.unknown(`${what} runs code only known at run time`)
  else a.script(code.value)
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

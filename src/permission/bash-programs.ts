// Programs whose options or subcommands run shell code: git (`-c`, `--upload-pack=`,
// `rebase --exec`, `bisect run`, `submodule foreach`), tar `--to-command`, rsync `-e`,
// ssh `-o ProxyCommand=`, sort `--compress-program`, make `--eval`, and editors. The
// code is analysed like a `bash -c` string when it is literal, and is unknowable otherwise.
import { reader } from "./bash-reads"
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
    if (["--upload-pack", "--receive-pack", "--exec", "--extcmd"].includes(name) || (sub === "rebase" && name === "-x")) {
      runCode(a, `git ${sub} ${name}`, eq > 0 ? literalWord(v.slice(eq + 1)) : rest[at + 1])
    }
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

// Commands with options whose value is a command line (`code`) or a path (`paths`);
// `localOperands` checks operands that are not `host:path` as paths too.
function codeOptions(shortValue: string, longValue: string[], code: string[], paths: string[] = [], localOperands = false): Handler {
  return (words, a, io) => {
    const { options, operands: rest } = operands(words, 1, shortValue, longValue)
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

const editor: Handler = (words, a) => {
  if (words.length > 1) a.unknown(`${words[0].value} can run shell commands from its arguments`)
}

export const PROGRAMS: Record<string, Handler> = {
  git,
  tar: codeOptions("IFfCbHKLNVgT", ["--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command"], [
    "-I", "-F", "--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command",
  ], ["-C", "--directory", "-f", "--file"]),
  rsync: codeOptions("eBfT", ["--rsh", "--rsync-path", "--filter", "--exclude", "--include"], ["-e", "--rsh", "--rsync-path"], [], true),
  ssh,
  scp: ssh,
  sftp: ssh,
  zip: codeOptions("", ["--unzip-command"], ["-TT", "--unzip-command"]),
  sort: (words, a, io) => {
    const long = ["--compress-program", "--key", "--output", "--field-separator", "--temporary-directory", "--buffer-size"]
    codeOptions("kotST", long, ["--compress-program"])(words, a, io)
    reader({ shortValue: "kotST", longValue: long, readOptions: ["--files0-from"] })(words, a, io)
  },
  make: codeOptions("CfIjloWE", ["--eval", "--file", "--directory"], ["-E", "--eval"]),
}

for (const name of ["vi", "vim", "nvim", "ex", "view", "emacs", "ed"]) PROGRAMS[name] = editor

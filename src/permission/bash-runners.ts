// Commands that run other code: wrappers that run the command after their options
// (`sudo`, `env`, `timeout`, `xargs`), `find -exec`, commands that run a string as shell
// code (`eval`, `watch`, `su -c`), and builtins that change what a name runs. Whatever
// cannot be known before running is reported.
import { scriptFile } from "./bash-interpreters"
import { ASSIGNMENT, type Handler, commandVariable, dangerousVariable, describe } from "./bash-types"
import { type Word, literalWord, operands, scanOptions } from "./bash-words"

// Wrappers whose first operand is the command they run.
function wrapper(shortValue: string, longValue: string[] = [], positionals = 0, noInner?: (names: Set<string>) => string | void): Handler {
  return (words, a) => {
    const scan = scanOptions(words, 1, shortValue, longValue)
    const names = new Set(scan.options.map((o) => o.name))
    const start = scan.index + (scan.dynamic ? 0 : positionals)
    if (start >= words.length) {
      const reason = noInner?.(names)
      if (reason) a.unknown(reason)
      return
    }
    return { inner: start }
  }
}

const shellStarts = (flags: string[], what: string) => (names: Set<string>) =>
  flags.some((f) => names.has(f)) ? `${what} starts an interactive shell` : undefined

const env: Handler = (words, a) => {
  const scan = scanOptions(words, 1, "uCSP", ["--unset", "--chdir", "--split-string"])
  for (const option of scan.options) {
    if (option.name === "-S" || option.name === "--split-string") {
      if (option.value?.value === undefined) a.unknown(`env -S ${describe(option.value)} is only known at run time`)
      else a.script(option.value.value)
    }
    if (option.name === "-C" || option.name === "--chdir") a.checkPath(option.value ?? literalWord(""), { dir: true })
  }
  let i = scan.index
  for (; i < words.length; i++) {
    const name = ASSIGNMENT.exec(words[i].value ?? "")?.[1]
    if (!name) break
    if (commandVariable(name)) a.script(words[i].value!.slice(name.length + 1))
    else if (dangerousVariable(name)) a.unknown(`env ${name}=… changes which programs run`)
  }
  return i < words.length ? { inner: i } : undefined
}

const xargs: Handler = (words, a, io) => {
  const scan = scanOptions(words, 1, "ILnPsdEa", ["--max-args", "--max-procs", "--max-chars", "--delimiter", "--eof", "--arg-file", "--max-lines", "--process-slot-var"], ["--null", "--replace", "--interactive", "--verbose", "--no-run-if-empty", "--exit", "--open-tty", "--show-limits"])
  const replaceOption = scan.options.find((o) => o.name === "-I" || o.name === "--replace" || o.name === "-i" || o.name.startsWith("-i"))
  const replace = replaceOption ? (replaceOption.name === "-I" ? replaceOption.value?.value : "{}") : undefined
  if (replaceOption && replace === undefined) a.unknown("xargs -I names a replacement only known at run time")
  for (const o of scan.options) {
    if ((o.name === "-a" || o.name === "--arg-file") && o.value) {
      a.checkPath(o.value, { io })
      a.read(o.value, { io })
    }
  }
  return scan.index < words.length ? { inner: scan.index, innerIo: { findPaths: io.findPaths, extraArgs: true, ...(replace !== undefined ? { replace } : {}) } } : undefined
}

const commandBuiltin: Handler = (words) => {
  const scan = scanOptions(words, 1)
  if (scan.options.some((o) => o.name === "-v" || o.name === "-V")) return
  return scan.index < words.length ? { inner: scan.index } : undefined
}

const evalBuiltin: Handler = (words, a) => {
  const parts = words.slice(1)
  if (parts.some((w) => w.value === undefined)) a.unknown(`eval runs text that is only known at run time`)
  else if (parts.length > 0) a.script(parts.map((w) => w.value).join(" "), true)
}

const source: Handler = (words, a) => {
  const file = words[1]
  if (!file) return
  scriptFile(file, a, `${words[0].value} reads`)
  a.read(file)
}

const trap: Handler = (words, a) => {
  let i = 1
  if (words[i]?.value === "--") i++
  const action = words[i]
  if (!action || words.length - i < 2) return
  if (action.value === undefined) a.unknown(`trap runs text that is only known at run time`)
  else if (action.value !== "-" && !action.value.startsWith("-")) a.script(action.value)
}

const watch: Handler = (words, a) => {
  const scan = scanOptions(words, 1, "n", ["--interval"])
  if (scan.options.some((o) => o.name === "-x" || o.name === "--exec")) return scan.index < words.length ? { inner: scan.index } : undefined
  const rest = words.slice(scan.index)
  if (scan.dynamic || rest.some((w) => w.value === undefined)) a.unknown(`watch runs text that is only known at run time`)
  else if (rest.length) a.script(rest.map((w) => w.value).join(" "))
}

// Commands that take a string to run with -c (su, script, flock after its lock file).
function dashC(what: string, shortValue: string, longValue: string[], whenMissing: string): Handler {
  return (words, a) => {
    const { options, dynamic } = operands(words, 1, shortValue + "c", [...longValue, "--command"])
    const code = options.find((o) => o.name === "-c" || o.name === "--command")
    if (dynamic) a.unknown(`${what} is given words that are only known at run time`)
    if (!code) return void a.unknown(whenMissing)
    if (code.value?.value === undefined) a.unknown(`${what} -c runs text that is only known at run time`)
    else a.script(code.value.value)
  }
}

const flock: Handler = (words, a) => {
  const first = scanOptions(words, 1, "wEc", ["--timeout", "--conflict-exit-code", "--command"])
  const code = first.options.find((o) => o.name === "-c" || o.name === "--command")
  const lockFile = words[first.index]
  if (!lockFile) return
  a.checkPath(lockFile)
  const second = scanOptions(words, first.index + 1, "c", ["--command"])
  const after = second.options.find((o) => o.name === "-c" || o.name === "--command") ?? code
  if (after) {
    if (after.value?.value === undefined) a.unknown(`flock -c runs text that is only known at run time`)
    else a.script(after.value.value)
    return
  }
  return second.index < words.length ? { inner: second.index } : undefined
}

const find: Handler = (words, a, io) => {
  let i = 1
  while (i < words.length && /^-[HLP]$|^-O\d$/.test(words[i].value ?? "")) i++
  if (words[i]?.value === "-D") i += 2
  const starts: Word[] = []
  while (i < words.length && words[i].value !== undefined && !/^[-(!)]/.test(words[i].value!)) starts.push(words[i++])
  if (starts.length === 0) starts.push(literalWord("."))
  for (const start of starts) a.checkPath(start, { dir: true, io })
  for (; i < words.length; i++) {
    const v = words[i].value
    if (v === undefined) {
      a.unknown(`find is given ${words[i].raw}, an expression only known at run time`)
      continue
    }
    if (v === "-delete") a.implied(["rm", ...starts.map((s) => s.value!)])
    if (["-fprint", "-fprint0", "-fprintf", "-fls"].includes(v) && words[i + 1]) a.checkPath(words[++i], { io })
    if (["-exec", "-execdir", "-ok", "-okdir"].includes(v)) {
      const end = words.findIndex((w, j) => j > i && (w.value === ";" || w.value === "+"))
      const inner = words.slice(i + 1, end < 0 ? words.length : end)
      if (inner.length) a.run(inner, { ...io, findPaths: true })
      i = end < 0 ? words.length : end
    }
  }
}

// Builtins that set variables from input or arguments: setting PATH and the like is unknowable,
// and a name with a subscript (`read 'a[$(cmd)]'`) has it evaluated as arithmetic.
const setsVariables: Handler = (words, a) => {
  const names = words.slice(1).filter((w, i, all) => !w.value?.startsWith("-") || all[i - 1]?.value === "-v")
  for (const word of names) variableName(words[0].value!, word, a)
}

function variableName(what: string, word: Word | undefined, a: Parameters<Handler>[1]): void {
  const name = word?.value
  if (name === undefined) a.unknown(`${what} sets a variable whose name is only known at run time`)
  else if (name.includes("[")) a.unknown(`${what} ${name} has a subscript, which bash evaluates as arithmetic (it may hold $(…))`)
  else if (dangerousVariable(name)) a.unknown(`${what} sets ${name}, which changes which programs run`)
  else a.setsVariable(name, what)
}

// `test -v 'a[…]'` evaluates the subscript as arithmetic, as `[[ -v ]]` does.
const testBuiltin: Handler = (words, a) => {
  for (let i = 1; i < words.length; i++) {
    if (words[i].value !== "-v") continue
    const name = words[i + 1]
    if (name?.value === undefined || name.value.includes("[")) a.unknown(`${words[0].value} -v ${describe(name)} evaluates a subscript that may hold $(…)`)
  }
}

// `let` evaluates each argument as arithmetic.
const letBuiltin: Handler = (words, a) => {
  for (const word of words.slice(1)) {
    if (word.value === undefined) a.unknown(`let ${word.raw} is evaluated as arithmetic and only known at run time`)
    else a.arithmeticText(word.value, "let")
  }
}

// mapfile -C runs its callback as shell code.
const mapfile: Handler = (words, a, io) => {
  const scan = scanOptions(words, 1, "dnOsuCc")
  const callback = scan.options.find((o) => o.name === "-C")
  if (callback && callback.value?.value === undefined) a.unknown(`${words[0].value} -C runs code only known at run time`)
  else if (callback) a.script(callback.value!.value!)
  setsVariables(words.filter((w) => w !== callback?.value), a, io)
}

const opaque = (what: string): Handler => (words, a) => {
  a.unknown(`${words[0].value} ${what}; its arguments are not analysed`)
}

export const RUNNERS: Record<string, Handler> = {
  sudo: wrapper("ugphCDrtUTR", ["--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user", "--command-timeout", "--chroot"], 0, (n) =>
    shellStarts(["-s", "-i", "--shell", "--login"], "sudo")(n) ?? (n.has("-e") || n.has("--edit") ? "sudo -e edits files as root" : undefined),
  ),
  doas: wrapper("uC", [], 0, shellStarts(["-s"], "doas")),
  pkexec: wrapper("", ["--user"], 0, () => "pkexec without a command starts a shell"),
  env,
  timeout: wrapper("sk", ["--signal", "--kill-after"], 1),
  nice: wrapper("n", ["--adjustment"]),
  ionice: (words, a, io) => {
    const scan = scanOptions(words, 1, "cnpPu", ["--class", "--classdata", "--pid", "--pgid", "--uid"])
    if (scan.options.some((o) => ["-p", "-P", "-u", "--pid", "--pgid", "--uid"].includes(o.name))) return
    return wrapper("cnpPu", ["--class", "--classdata"])(words, a, io)
  },
  nohup: wrapper(""),
  setsid: wrapper(""),
  builtin: wrapper(""),
  coproc: wrapper(""),
  unbuffer: wrapper(""),
  time: wrapper("fo", ["--format", "--output"]),
  exec: wrapper("a"),
  command: commandBuiltin,
  stdbuf: wrapper("ioe", ["--input", "--output", "--error"]),
  chrt: (words, a, io) => (words.some((w) => w.value === "-p" || w.value === "--pid") ? undefined : wrapper("", [], 1)(words, a, io)),
  taskset: (words, a, io) => (words.some((w) => w.value === "-p" || w.value === "--pid") ? undefined : wrapper("", [], 1)(words, a, io)),
  chroot: (words, a, io) => {
    const scan = scanOptions(words, 1, "", ["--userspec", "--groups"])
    if (words[scan.index]) a.checkPath(words[scan.index], { dir: true })
    return wrapper("", ["--userspec", "--groups"], 1, () => "chroot without a command starts a shell")(words, a, io)
  },
  caffeinate: wrapper("wt"),
  busybox: wrapper(""),
  xargs,
  find,
  fd: (words, a, io) => {
    const at = words.findIndex((w) => ["-x", "--exec", "-X", "--exec-batch"].includes(w.value ?? ""))
    if (at > 0 && at + 1 < words.length) a.run(words.slice(at + 1), { ...io, findPaths: true })
  },
  eval: evalBuiltin,
  source,
  ".": source,
  trap,
  watch,
  su: dashC("su", "sgG", ["--shell", "--group", "--supp-group", "--session-command"], "su without -c starts a shell"),
  runuser: dashC("runuser", "usgG", ["--user", "--shell", "--group", "--supp-group"], "runuser without -c starts a shell or runs a command its options hide"),
  script: dashC("script", "ETIOBm", ["--echo", "--log-timing", "--log-in", "--log-out", "--log-io", "--logging-format"], "script without -c starts a shell"),
  flock,
  deno: (words, a) => {
    if (words.slice(1).some((w) => w.value === "eval" || w.value === "-" || w.value === undefined)) a.unknown(`deno runs inline or generated code`)
  },
  hash: (words, a) => (words.some((w) => w.value?.startsWith("-p")) ? a.unknown("hash -p changes which program a name runs") : undefined),
  alias: (words, a) => (words.slice(1).some((w) => w.value === undefined || w.value.includes("=")) ? a.unknown("alias redefines command names") : undefined),
  enable: (words, a) => (words.some((w) => w.value === undefined || w.value.startsWith("-f")) ? a.unknown("enable -f loads code into the shell") : undefined),
  read: setsVariables,
  mapfile,
  readarray: mapfile,
  printf: (words, a) => {
    const at = words.findIndex((w) => w.value?.startsWith("-v"))
    if (at < 0) return
    const name = words[at].value === "-v" ? words[at + 1] : literalWord(words[at].value!.slice(2))
    if (name?.value === undefined || dangerousVariable(name.value) || name.value.includes("[")) a.unknown(`printf -v sets ${describe(name)}, which may change which programs run or hold a subscript bash evaluates`)
    else a.setsVariable(name.value, "printf -v")
  },
  test: testBuiltin,
  "[": testBuiltin,
  wait: (words, a) => {
    const scan = scanOptions(words, 1, "p")
    const p = scan.options.find((o) => o.name === "-p")
    if (p) variableName("wait -p", p.value, a)
  },
  let: letBuiltin,
  unset: (words, a) => {
    for (const word of words.slice(1)) if (!word.value?.startsWith("-")) if (word.value === undefined || word.value.includes("[")) a.unknown(`unset ${word.raw} evaluates a subscript that may hold $(…)`)
  },
  getopts: (words, a) => variableName("getopts", words[2], a),
}

// More wrappers that run the command after their options.
Object.assign(RUNNERS, {
  eatmydata: wrapper(""),
  catchsegv: wrapper(""),
  nocache: wrapper(""),
  chronic: wrapper("", [], 0),
  ifne: wrapper(""),
  torsocks: wrapper("uaP"),
  proxychains: wrapper("f"),
  proxychains4: wrapper("f"),
  tini: wrapper("spel"),
  "dumb-init": wrapper("r", ["--rewrite"]),
  fakeroot: wrapper("lsi", ["--lib", "--faked"]),
  faketime: wrapper("", [], 1),
  linux32: wrapper(""),
  linux64: wrapper(""),
  sshpass: wrapper("pfde"),
  "cross-env": env,
  "cross-env-shell": (words: Word[], a: Parameters<Handler>[1]) => {
    const parts = words.slice(1).filter((w) => !ASSIGNMENT.test(w.value ?? ""))
    if (parts.some((w) => w.value === undefined)) a.unknown("cross-env-shell runs text only known at run time")
    else if (parts.length) a.script(parts.map((w) => w.value).join(" "))
  },
} satisfies Record<string, Handler>)

for (const name of ["setarch", "rlwrap", "hyperfine", "concurrently", "run-parts", "nodemon", "watchexec", "perf", "env-cmd", "dotenv", "op", "doppler", "aws-vault", "sops", "direnv", "ssh-agent", "dbus-launch", "xterm", "daemonize", "start-stop-daemon", "tsp", "sem", "retry", "with-contenv", "npm-run-all", "run-p", "run-s", "socat", "ncat", "firejail", "bwrap", "flatpak-spawn", "distrobox-enter", "toolbox", "nix-shell", "guix", "devbox"]) {
  RUNNERS[name] = opaque("runs other commands")
}
for (const name of ["parallel", "nsenter", "unshare", "firejail", "systemd-run", "gosu", "su-exec", "setpriv", "prlimit", "numactl", "valgrind", "xvfb-run", "dbus-run-session", "sg", "newgrp", "chpst", "strace", "ltrace", "gdb", "lldb", "entr", "at", "batch", "crontab", "expect"]) {
  RUNNERS[name] = opaque("runs other commands")
}
for (const name of ["tmux", "screen"]) RUNNERS[name] = opaque("can run commands in other shells")

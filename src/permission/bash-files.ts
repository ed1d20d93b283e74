// Commands that take file paths, checked against the project: `cd` (which moves where
// later relative paths point), rm/cp/mv/…, `dd if= of=`, `sed -i`; and text processors
// whose programs can run commands or write files (awk, sed). The files they read (cat's,
// cp's sources, sed's and awk's inputs and scripts) are reported as reads.
import { posix } from "node:path"
import { ASSIGNMENT, type Handler, describe } from "./bash-types"
import { literalWord, operands, scanOptions } from "./bash-words"

const awk: Handler = (words, a, io) => {
  const scan = scanOptions(words, 1, "FvfeW", ["--field-separator", "--assign", "--file", "--source", "--exec", "--include", "--load"], [])
  for (const o of scan.options) {
    if (["--exec", "--include", "--load", "-W"].includes(o.name)) a.unknown(`${words[0].value} ${o.name} loads a program or extension that is not analysed`)
  }
  const scripts = scan.options.filter((o) => (o.name === "-f" || o.name === "--file") && o.value)
  for (const script of scripts) {
    a.checkPath(script.value!, { io })
    a.read(script.value!, { io })
  }
  if (scripts.length > 0) a.unknown(`${words[0].value} -f runs a program from a file, which is not analysed (system(), pipes)`)
  const programs = scan.options.filter((o) => o.name === "-e" || o.name === "--source").map((o) => o.value)
  const inputs = words.slice(scan.index + (scripts.length || programs.length ? 0 : 1))
  // Operands are input files, except `name=value`, which sets a variable.
  for (const input of inputs) {
    if (ASSIGNMENT.test(input.value ?? "") || input.value === "-") continue
    if (input.value !== undefined) a.checkPath(input, { io })
    a.read(input, { io })
  }
  if (scripts.length > 0) return
  if (programs.length === 0) programs.push(words[scan.index])
  for (const program of programs) {
    if (!program) continue
    const code = program.value
    if (code === undefined) a.unknown(`${words[0].value} runs a program only known at run time`)
    else if (awkRunsOrWrites(code)) a.unknown(`${words[0].value} program runs commands or writes files`)
  }
}

// system(), pipes to or from commands, and print/printf redirected into a file.
function awkRunsOrWrites(code: string): boolean {
  if (/\bsystem\s*\(/.test(code) || code.includes("|")) return true
  return code.split(/[;}\n]/).some((statement) => {
    const at = statement.search(/\bprintf?\b/)
    return at >= 0 && statement.includes(">", at)
  })
}

const sed: Handler = (words, a, io) => {
  const { operands: rest, options, dynamic } = operands(words, 1, "efl", ["--expression", "--file", "--line-length"], SED_FLAGS)
  if (dynamic) a.unknown(`sed is given words that are only known at run time`)
  const scripts = options.filter((o) => o.name === "-e" || o.name === "--expression").map((o) => o.value)
  const files = scripts.length || options.some((o) => o.name === "-f" || o.name === "--file") ? rest : rest.slice(1)
  if (scripts.length === 0 && !options.some((o) => o.name === "-f")) scripts.push(rest[0])
  for (const script of scripts) {
    const code = script?.value
    if (script && code === undefined) a.unknown(`sed runs a script only known at run time`)
    if (code && sedRunsOrWrites(code)) a.unknown(`sed script runs commands or writes files (e, w, r commands)`)
  }
  for (const o of options) {
    if ((o.name === "-f" || o.name === "--file") && o.value) {
      a.read(o.value, { io })
      a.unknown(`sed ${o.name} runs a script from a file, whose commands (e, w, r) are not analysed`)
    }
  }
  for (const file of files) {
    if (file.value === "-") continue
    if (file.value !== undefined) a.checkPath(file, { io })
    a.read(file, { io })
  }
  if (options.some((o) => o.name === "-i" || o.name.startsWith("-i") || o.name === "--in-place")) {
    for (const file of files) {
      a.checkPath(file, { io })
      a.wrote(file)
    }
  }
}

const SED_FLAGS = ["--in-place", "--quiet", "--silent", "--null-data", "--zero-terminated", "--regexp-extended", "--separate", "--sandbox", "--unbuffered", "--posix", "--debug", "--follow-symlinks", "--binary"]

function sedRunsOrWrites(code: string): boolean {
  // An `s` command with the e or w flag, or an e/w/W/r/R command after an address (a line
  // number, `$`, `/re/` with its I and M flags, `first~step`, `addr,+N`), `!` or a separator.
  const sFlags = /s([^\w\s\\])(?:\\[^]|(?!\1)[^\\])*\1(?:\\[^]|(?!\1)[^\\])*\1([a-zA-Z0-9]*)/g
  for (const m of code.matchAll(sFlags)) if (/[ew]/.test(m[2])) return true
  const stripped = code.replace(sFlags, ";")
  return /(^|[^A-Za-z_\\]|\/[IM]+)\s*[ewWrR](\s|$)/.test(stripped)
}

const dd: Handler = (words, a, io) => {
  for (const word of words.slice(1)) {
    const v = word.value
    if (v === undefined) a.unknown(`dd is given ${word.raw}, only known at run time`)
    else if (v.startsWith("if=") || v.startsWith("of=")) {
      const file = { ...literalWord(v.slice(3)), glob: word.glob }
      a.checkPath(file, { io })
      if (v.startsWith("if=")) a.read(file, { io })
      else a.wrote(file)
    }
  }
}

// Commands whose operands are paths: shortValue/longValue list options that take a value,
// pathOptions those whose value is a path too.
// `writes` says which operands are written: every one (tee) or the last, a destination (cp).
// `reads` says which are read: every one (cat), or the sources of a copy (every one but the
// destination, which is the last unless an option names it).
function fileCommand(shortValue = "", longValue: string[] = [], pathOptions: string[] = [], writes?: "all" | "last", reads?: "all" | "sources"): Handler {
  return (words, a, io) => {
    const { operands: paths, options } = operands(words, 1, shortValue, longValue)
    for (const option of options) if (pathOptions.includes(option.name) && option.value) a.checkPath(option.value, { io })
    for (const path of paths) if (path.value !== "-") a.checkPath(path, { io })
    if (io.extraArgs) a.unknown(`${words[0].value} gets more paths from xargs' input`)
    // unlink, shred -u and truncate -s 0 remove or empty files as rm does: rm's rules apply.
    const name = words[0].value
    const deletes = name === "unlink" || (name === "shred" && options.some((o) => o.name === "-u" || o.name.startsWith("--remove")))
      || (name === "truncate" && options.some((o) => (o.name === "-s" || o.name === "--size") && /^[0]+[KMGkmg]?$/.test(o.value?.value ?? "")))
    if (deletes && paths.every((p) => p.value !== undefined) && paths.length > 0) a.implied(["rm", ...paths.map((p) => p.value!)])
    const target = options.find((o) => pathOptions.includes(o.name))?.value
    const sources = target ? paths : paths.slice(0, -1)
    if (reads) for (const path of reads === "all" ? paths : sources) a.read(path, { io })
    if (writes === "all") for (const path of paths) a.wrote(path)
    if (writes === "last") {
      const dest = target ?? paths[paths.length - 1]
      if (dest?.value === undefined) return
      a.wrote(dest)
      for (const source of sources) if (source.value) a.wrote({ ...dest, value: `${dest.value}/${posix.basename(source.value)}` })
    }
  }
}

const cd: Handler = (words, a) => {
  const { operands: targets, dynamic } = operands(words, 1)
  const target = targets[0]
  if (dynamic || (target && target.value === undefined)) {
    a.unknown(`cd ${describe(target)} goes to a directory only known at run time`)
    a.changeDir(undefined)
    return
  }
  if (target?.value === "-") {
    a.changeDir(undefined)
    return { skip: true }
  }
  const dest = target ?? literalWord("~")
  a.checkPath(dest, { dir: true })
  a.changeDir(dest)
  return { skip: true }
}

const popd: Handler = (_words, a) => {
  a.changeDir(undefined)
  return { skip: true }
}

export const FILE_COMMANDS: Record<string, Handler> = {
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  sed,
  dd,
  cd,
  pushd: cd,
  popd,
  rm: fileCommand(),
  rmdir: fileCommand(),
  unlink: fileCommand(),
  shred: fileCommand("ns", ["--iterations", "--size", "--random-source"]),
  cp: fileCommand("tS", ["--target-directory", "--suffix"], ["-t", "--target-directory"], "last", "sources"),
  mv: fileCommand("tS", ["--target-directory", "--suffix"], ["-t", "--target-directory"], "last", "sources"),
  ln: fileCommand("tS", ["--target-directory", "--suffix"], ["-t", "--target-directory"], "last"),
  install: fileCommand("tmogS", ["--target-directory", "--mode", "--owner", "--group", "--suffix"], ["-t", "--target-directory"], "last", "sources"),
  mkdir: fileCommand("m", ["--mode", "--context"]),
  touch: fileCommand("rdt", ["--reference", "--date", "--time"], ["-r", "--reference"]),
  chmod: fileCommand("", [], ["--reference"]),
  chown: fileCommand("", [], ["--reference"]),
  chgrp: fileCommand("", [], ["--reference"]),
  truncate: fileCommand("sr", ["--size", "--reference"], ["-r", "--reference"]),
  cat: fileCommand("", [], [], undefined, "all"),
  tee: fileCommand("", [], [], "all"),
  head: fileCommand("nc", ["--lines", "--bytes"], [], undefined, "all"),
  tail: fileCommand("ncs", ["--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats"], [], undefined, "all"),
  less: fileCommand("", [], [], undefined, "all"),
  more: fileCommand("", [], [], undefined, "all"),
}

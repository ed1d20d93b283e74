// Commands that take file paths, checked against the project: `cd` (which moves where
// later relative paths point), rm/cp/mv/…, `dd if= of=`, `sed -i`; and text processors
// whose programs can run commands or write files (awk, sed).
import { posix } from "node:path"
import { type Handler, describe } from "./bash-types"
import { literalWord, operands, scanOptions } from "./bash-words"

const awk: Handler = (words, a) => {
  const scan = scanOptions(words, 1, "Fvfe", ["--field-separator", "--assign", "--file", "--source"])
  if (scan.options.some((o) => o.name === "-f" || o.name === "--file")) return
  const programs = scan.options.filter((o) => o.name === "-e" || o.name === "--source").map((o) => o.value)
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
  const { operands: rest, options, dynamic } = operands(words, 1, "efl", ["--expression", "--file", "--line-length"])
  if (dynamic) a.unknown(`sed is given words that are only known at run time`)
  const scripts = options.filter((o) => o.name === "-e" || o.name === "--expression").map((o) => o.value)
  const files = scripts.length || options.some((o) => o.name === "-f" || o.name === "--file") ? rest : rest.slice(1)
  if (scripts.length === 0 && !options.some((o) => o.name === "-f")) scripts.push(rest[0])
  for (const script of scripts) {
    const code = script?.value
    if (script && code === undefined) a.unknown(`sed runs a script only known at run time`)
    if (code && sedRunsOrWrites(code)) a.unknown(`sed script runs commands or writes files (e, w, r commands)`)
  }
  if (options.some((o) => o.name === "-i" || o.name.startsWith("--in-place"))) for (const file of files) a.checkPath(file, { io })
}

function sedRunsOrWrites(code: string): boolean {
  // An `s` command with the e or w flag, or an e/w/W/r/R command after an address or separator.
  const sFlags = /s([^\w\s\\])(?:\\[^]|(?!\1)[^\\])*\1(?:\\[^]|(?!\1)[^\\])*\1([a-zA-Z0-9]*)/g
  for (const m of code.matchAll(sFlags)) if (/[ew]/.test(m[2])) return true
  const stripped = code.replace(sFlags, ";")
  return /(^|[;{}\n0-9$/]|^\s)\s*[ewWrR](\s|$)/.test(stripped)
}

const dd: Handler = (words, a, io) => {
  for (const word of words.slice(1)) {
    const v = word.value
    if (v === undefined) a.unknown(`dd is given ${word.raw}, only known at run time`)
    else if (v.startsWith("if=") || v.startsWith("of=")) a.checkPath({ ...literalWord(v.slice(3)), glob: word.glob }, { io })
  }
}

// Commands whose operands are paths: shortValue/longValue list options that take a value,
// pathOptions those whose value is a path too.
// `writes` says which operands are written: every one (tee) or the last, a destination (cp).
function fileCommand(shortValue = "", longValue: string[] = [], pathOptions: string[] = [], writes?: "all" | "last"): Handler {
  return (words, a, io) => {
    const { operands: paths, options } = operands(words, 1, shortValue, longValue)
    for (const option of options) if (pathOptions.includes(option.name) && option.value) a.checkPath(option.value, { io })
    for (const path of paths) if (path.value !== "-") a.checkPath(path, { io })
    if (io.extraArgs) a.unknown(`${words[0].value} gets more paths from xargs' input`)
    if (writes === "all") for (const path of paths) a.wrote(path)
    if (writes === "last") {
      const target = options.find((o) => pathOptions.includes(o.name))?.value
      const dest = target ?? paths[paths.length - 1]
      const sources = target ? paths : paths.slice(0, -1)
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
  shred: fileCommand("nsu", ["--iterations", "--size", "--random-source"]),
  cp: fileCommand("tS", ["--target-directory", "--suffix"], ["-t", "--target-directory"], "last"),
  mv: fileCommand("tS", ["--target-directory", "--suffix"], ["-t", "--target-directory"], "last"),
  ln: fileCommand("tS", ["--target-directory", "--suffix"], ["-t", "--target-directory"], "last"),
  install: fileCommand("tmogS", ["--target-directory", "--mode", "--owner", "--group", "--suffix"], ["-t", "--target-directory"], "last"),
  mkdir: fileCommand("m", ["--mode", "--context"]),
  touch: fileCommand("rdt", ["--reference", "--date", "--time"], ["-r", "--reference"]),
  chmod: fileCommand("", [], ["--reference"]),
  chown: fileCommand("", [], ["--reference"]),
  chgrp: fileCommand("", [], ["--reference"]),
  truncate: fileCommand("sr", ["--size", "--reference"], ["-r", "--reference"]),
  cat: fileCommand(),
  tee: fileCommand("", [], [], "all"),
  head: fileCommand("nc", ["--lines", "--bytes"]),
  tail: fileCommand("ncs", ["--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats"]),
  less: fileCommand(),
  more: fileCommand(),
}

// Shells and interpreters: `bash -c` strings are analysed as scripts; inline code of other
// languages (`python -c`, `node -e`, `perl -e`), scripts read from standard input, and
// scripts written earlier in the same command line cannot be known before they run.
import type { Analyzer, Handler, Io } from "./bash-types"
import { type Word, scanOptions } from "./bash-words"

export const SHELLS = ["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "rbash"]

/** Under `xargs -I STR`, a shell or interpreter given STR runs code or a file read from input. */
function fromInput(words: Word[], a: Analyzer, io: Io): boolean {
  const replace = io.replace
  if (replace === undefined || !words.some((w) => w.value?.includes(replace))) return false
  a.unknown(`${words[0].value} runs code or a file that xargs builds from its input (${replace})`)
  return true
}

export const shell: Handler = (words, a, io) => {
  // Code built from input is unknowable, but what it visibly runs (`sh -c 'rm {}'`) still meets the rules.
  const tainted = fromInput(words, a, io)
  const scan = scanOptions(words, 1, "oO", ["--rcfile", "--init-file"])
  const letters = scan.options.filter((o) => /^-[a-zA-Z]$/.test(o.name)).map((o) => o.name[1])
  const name = words[0].value
  if (scan.dynamic || words.slice(scan.index).some((w) => w.value === undefined)) {
    a.unknown(`${name} is given words that are only known at run time`)
    return
  }
  if (letters.includes("c")) {
    const code = words[scan.index]
    if (!code) a.unknown(`${name} -c without a command`)
    else a.script(code.value!)
    return
  }
  if (tainted) return
  const script = words[scan.index]
  if (script && !letters.includes("s")) {
    scriptFile(script, a, `${name} runs`)
    return
  }
  readsStdin(name!, a, io, true)
}

export function scriptFile(word: Word, a: Analyzer, what: string): void {
  const file = word.value
  if (file === undefined || file === "-" || /^\/(dev|proc)\//.test(file)) {
    a.unknown(`${what} ${word.raw}, whose content is only known at run time`)
    return
  }
  if (a.runsWritten(word)) a.unknown(`${what} ${word.raw}, a file written in this session (or by this command line)`)
  a.checkPath(word)
}

function readsStdin(name: string, a: Analyzer, io: Io, isShell: boolean): void {
  const stdin = io.stdin
  if (stdin?.kind === "file") {
    if (stdin.word && a.runsWritten(stdin.word)) a.unknown(`${name} runs ${stdin.word.raw}, a file written in this session (or by this command line), from its standard input`)
    return
  }
  if (isShell && stdin?.kind === "text" && stdin.text !== undefined) {
    a.script(stdin.text)
    return
  }
  a.unknown(`${name} runs code read from its standard input`)
}

interface InterpreterSpec {
  /** Short letters / long options that run the following text as code. */
  inlineLetters: string
  inlineLong?: string[]
  shortValue?: string
  longValue?: string[]
  /** Options that make the interpreter run without a script (module runners, --version, --test). */
  noScript?: string[]
  /** Options that load code named by their value before the script (node --import, perl -M). */
  preload?: string[]
}

const PYTHON: InterpreterSpec = { inlineLetters: "c", shortValue: "mWXQ", noScript: ["-m", "-V", "--version", "-h", "--help"] }
const NODE_PRELOAD = ["-r", "--require", "--import", "--loader", "--experimental-loader"]
const TS_NODE: InterpreterSpec = {
  inlineLetters: "ep",
  inlineLong: ["--eval", "--print"],
  shortValue: "rC",
  longValue: ["--require", "--import", "--loader", "--tsconfig", "--project", "--compiler", "--conditions"],
  noScript: ["-v", "--version", "-h", "--help"],
  preload: NODE_PRELOAD,
}
const NODE: InterpreterSpec = {
  inlineLetters: "ep",
  inlineLong: ["--eval", "--print"],
  shortValue: "rC",
  longValue: ["--require", "--import", "--loader", "--experimental-loader", "--input-type", "--conditions", "--env-file", "--title"],
  noScript: ["-v", "--version", "-h", "--help", "--test", "--run"],
  preload: NODE_PRELOAD,
}
const INTERPRETERS: Record<string, InterpreterSpec> = {
  node: NODE,
  nodejs: NODE,
  bun: { inlineLetters: "ep", inlineLong: ["--eval", "--print"], shortValue: "r", longValue: ["--preload"], noScript: ["-v", "--version", "-h", "--help"], preload: ["-r", "--preload"] },
  perl: { inlineLetters: "eE", shortValue: "IMm", noScript: ["-v", "-V", "--version", "-h", "--help"], preload: ["-M", "-m", "-I"] },
  ruby: { inlineLetters: "e", shortValue: "Ir", noScript: ["-v", "--version", "-h", "--help"], preload: ["-r", "-I"] },
  php: { inlineLetters: "rBRFE", noScript: ["-v", "--version", "-h", "--help", "-S", "-l"] },
  lua: { inlineLetters: "e", shortValue: "l", noScript: ["-v", "-h"] },
  luajit: { inlineLetters: "e", shortValue: "l", noScript: ["-v", "-h"] },
  Rscript: { inlineLetters: "e", noScript: ["--version", "--help"] },
  osascript: { inlineLetters: "e", noScript: [] },
  tclsh: { inlineLetters: "", noScript: [] },
  tsx: TS_NODE,
  "ts-node": TS_NODE,
  "ts-node-esm": TS_NODE,
  ipython: PYTHON,
  ipython3: PYTHON,
}

function interpreterSpec(name: string): InterpreterSpec | undefined {
  if (/^(python|pypy)[0-9.]*$/.test(name)) return PYTHON
  return INTERPRETERS[name]
}

/**
 * Where the arguments of `python -m MODULE` start: python reads no options after the module's
 * name (`python -m pytest -c setup.cfg` gives -c to pytest). Undefined without -m.
 */
function moduleArgs(words: Word[]): number | undefined {
  for (let i = 1; i < words.length; i++) {
    const v = words[i].value
    if (v === undefined || v.length < 2 || !v.startsWith("-") || v.startsWith("--")) return undefined
    for (let j = 1; j < v.length; j++) {
      if (v[j] === "m") return j + 1 < v.length ? i + 1 : i + 2
      if (v[j] === "c") return undefined
      if ("WXQ".includes(v[j])) {
        if (j + 1 === v.length) i++
        break
      }
    }
  }
  return undefined
}

// Standard modules that run a script named in their arguments (`python -m cProfile x.py`).
const SCRIPT_MODULES = new Set(["pdb", "cProfile", "profile", "trace"])

/** The arguments of `python -m MODULE` where the module runs code they hold or name. */
function pythonModule(name: string, module: string, words: Word[], from: number, a: Analyzer): void {
  const args = words.slice(from)
  if (module === "timeit" && args.length > 0) return a.unknown(`${name} -m timeit runs its arguments as Python code`)
  if (!SCRIPT_MODULES.has(module)) return
  const scan = scanOptions(words, from, "cosmC", ["--command", "--outfile", "--sort", "--module", "--coverdir", "--file", "--ignore-module", "--ignore-dir"])
  const command = scan.options.find((o) => o.name === "-c" || o.name === "--command")
  if (command) a.unknown(`${name} -m ${module} ${command.name} runs debugger commands, which run Python code`)
  const inner = scan.options.find((o) => o.name === "-m" || o.name === "--module")
  if (inner) {
    if (inner.value?.value === undefined) a.unknown(`${name} -m ${module} -m runs a module only known at run time`)
    else a.localModule(inner.value.value.split(".")[0], `${name} -m ${module} -m ${inner.value.value}`)
  }
  if (scan.dynamic) a.unknown(`${name} -m ${module} is given words that are only known at run time`)
  else if (words[scan.index]) scriptFile(words[scan.index], a, `${name} -m ${module} runs`)
}

export const interpreter: Handler = (words, a, io) => {
  if (fromInput(words, a, io)) return
  const name = words[0].value!
  const spec = interpreterSpec(name)!
  const full = words
  const cut = spec === PYTHON ? moduleArgs(words) : undefined
  if (cut !== undefined) words = words.slice(0, cut)
  const scan = scanOptions(words, 1, spec.shortValue ?? "", spec.longValue ?? [])
  const inline = scan.options.find(
    (o) => (o.name.length === 2 && spec.inlineLetters.includes(o.name[1])) || (spec.inlineLong ?? []).includes(o.name),
  )
  if (inline) {
    a.unknown(`${name} ${inline.name} runs inline code`)
    return
  }
  const preload = scan.options.find((o) => spec.preload?.includes(o.name))
  if (preload) a.unknown(`${name} ${preload.name} loads code named by its value before anything else runs`)
  // python -m NAME runs NAME from the current directory first, where a file may have just been written.
  const module = spec === PYTHON ? scan.options.find((o) => o.name === "-m")?.value : undefined
  if (module) {
    if (module.value === undefined) a.unknown(`${name} -m runs a module only known at run time`)
    else a.localModule(module.value.split(".")[0], `${name} -m ${module.value}`)
    if (module.value !== undefined && cut !== undefined) pythonModule(name, module.value, full, cut, a)
  }
  if (scan.dynamic) {
    a.unknown(`${name} is given words that are only known at run time`)
    return
  }
  const script = words[scan.index]
  if (script) return scriptFile(script, a, `${name} runs`)
  if (scan.options.some((o) => spec.noScript?.includes(o.name))) return
  readsStdin(name, a, io, false)
}

export const powershell: Handler = (words, a) => {
  if (words.slice(1).some((w) => w.value === undefined || /^-(c|command|e|ec|encodedcommand)$/i.test(w.value))) {
    a.unknown(`${words[0].value} runs inline PowerShell code`)
  }
}


export function isInterpreter(name: string): boolean {
  return interpreterSpec(name) !== undefined
}

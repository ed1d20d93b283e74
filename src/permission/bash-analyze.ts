// Bash command analysis: what the bash tool must ask before running a command line.
// Every simple command is found wherever it sits (lists, pipelines, subshells, `$(…)`,
// backquotes, process substitution, loop and if bodies, functions, here-documents fed
// to shells, `bash -c` strings, `eval` text), wrappers are looked through, and paths given
// to file commands and redirections are checked against the project. Whatever cannot be
// known before the command runs is reported, and the request must then be asked. Files the
// command reads (cat, grep, `< file`, …) are asked as `read`, so the read rules apply.
// This file is the walk over commands and paths; what the command line's variables make of
// arithmetic is bash-variables.ts, and the requests built from the findings bash-requests.ts.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { prefixInfo } from "./arity"
import { type Analyzer, type Io, checksOwnPaths, handlerFor } from "./bash-commands"
import { type Node, type Tree, bashParser } from "./bash-parser"
import { type Form, heredocText, keywordPrefixes, pathOperand, RESERVED, testArithmetic, truncates, unique, wrapperForms } from "./bash-syntax"
import { type BashRequest, type Found, bashRequests } from "./bash-requests"
import { Variables } from "./bash-variables"
import { type Word, evalWord, literalWord, pureVisit } from "./bash-words"
import { expandGlob, externalDirectoryPattern, isDirectory, isInside, pathPatterns, resolveBoth, resolveReal, vcsConfigPattern } from "./paths"

export type { BashCommand, BashRequest } from "./bash-requests"

interface Parser {
  parse(text: string): Tree | null
}

const MAX_DEPTH = 6
const MAX_CWDS = 16
const SAFE_DEVICES = /^\/dev\/(null|zero|random|urandom|tty|stdin|stdout|stderr|fd\/\d+)$/

/**
 * What the bash tool must ask before running `command`, in order. `worktree` (the project
 * unless given) is what `read` patterns are relative to, as the read tool's are.
 */
export interface AnalyzeOptions {
  cwd: string
  project: string
  worktree?: string
  /** Files written before this command (by tools or earlier commands): running one asks. */
  written?: (absPath: string) => boolean
  /** Told the absolute paths this command writes, as far as the analysis reads them. */
  onWrites?: (paths: string[]) => void
}

/** Loads the parser now; a failure is reported by the next analyzeBash. Never rejects. */
export const warmParser = (): Promise<unknown> => bashParser().catch(() => undefined)

export async function analyzeBash(command: string, opts: AnalyzeOptions): Promise<BashRequest[]> {
  const analysis = new Analysis(await bashParser(), opts)
  analysis.start(command)
  opts.onWrites?.(analysis.writes())
  return analysis.requests(command)
}

class Analysis implements Analyzer {
  private readonly commands: Found[] = []
  private readonly reasons = new Set<string>()
  private readonly external = new Map<string, string>()
  private readonly project: string
  private readonly home = os.homedir()
  private cwds: string[]
  private cwdKnown = true
  private depth = 0
  private unreadable = false
  private readonly written = new Set<string>()
  private readonly reads = new Set<string>()
  private readonly vcs = new Set<string>()
  private readonly variables = new Variables({ visit: (n) => this.visit(n), unknown: (reason) => this.unknown(reason), script: (text) => this.script(text) })
  private readonly worktree: string

  private readonly before?: (absPath: string) => boolean

  constructor(
    private readonly parser: Parser,
    opts: AnalyzeOptions,
  ) {
    this.before = opts.written
    this.project = resolveReal(opts.project, "/")
    this.worktree = opts.worktree ?? opts.project
    this.cwds = [path.resolve(opts.cwd)]
  }

  start(command: string): void {
    for (const real of resolveBoth(this.cwds[0], "/")) if (!isInside(this.project, real)) this.addExternal(real, true)
    try {
      this.script(command, true)
    } catch (e) {
      // Nesting deep enough to exhaust the stack is asked about, like anything unreadable.
      if (!(e instanceof RangeError)) throw e
      this.unknown("the command is nested too deeply to analyse")
      this.unreadable = true
    }
  }

  run(words: Word[], io: Io): void {
    this.simple(words, io)
  }

  requests(command: string): BashRequest[] {
    const { commands, reasons, external, vcs, reads, unreadable } = this
    return bashRequests(command, { commands, reasons, external, vcs, reads, unreadable })
  }

  unknown(reason: string): void {
    this.reasons.add(reason)
  }

  script(text: string, sameShell = false): void {
    if (this.depth >= MAX_DEPTH) return this.unknown("shell code is nested too deeply to analyse")
    // bash joins `r\<newline>m` into `rm`; the parser sees two words.
    if (/\S\\\r?\n\S/.test(text)) this.unknown("a line continuation splits a word, which the parser reads differently from bash")
    const tree = this.parseCompound(text)
    if (!tree) return this.unknown("the command could not be parsed")
    this.depth++
    try {
      if (tree.rootNode.hasError) {
        this.unknown("the command could not be fully parsed")
        this.unreadable = true
      }
      if (sameShell) this.visit(tree.rootNode)
      else this.scoped(() => this.visit(tree.rootNode))
    } finally {
      this.depth--
      tree.delete()
    }
  }

  /**
   * Parses `text`; where `time`, `coproc` or `!` precede a reserved word or a brace (which the
   * grammar reads as a command named `{`), the keyword is blanked and the text parsed again,
   * so `time { rm x; }` is read as the group it is.
   */
  private parseCompound(text: string): Tree | null {
    let tree = this.parser.parse(text)
    for (let round = 0; tree && round < 4; round++) {
      const ranges = keywordPrefixes(tree.rootNode)
      if (ranges.length === 0) break
      let next = text
      for (const [start, end] of ranges) next = next.slice(0, start) + " ".repeat(end - start) + next.slice(end)
      tree.delete()
      text = next
      tree = this.parser.parse(text)
    }
    return tree
  }

  implied(tokens: string[]): void {
    this.commands.push({ name: tokens[0], tokens, forms: [{ tokens, prefixLen: 0 }] })
  }

  changeDir(target: Word | undefined): void {
    const dest = target && this.expandTilde(target)
    if (dest === undefined) {
      this.cwdKnown = false
      return
    }
    // A cd may fail, so the commands after it may run in the old directory or the new one.
    const next = dest.startsWith("/") ? [path.resolve(dest)] : this.cwds.map((cwd) => path.resolve(cwd, dest))
    this.cwds = unique([...this.cwds, ...next])
    if (this.cwds.length > MAX_CWDS) {
      this.unknown("too many directory changes to follow")
      this.cwdKnown = false
    }
  }

  checkPath(word: Word, opts: { dir?: boolean; io?: Io } = {}): void {
    if (word.fd) return
    if (opts.io?.findPaths && word.value?.includes("{}")) return
    if (word.value === undefined) return this.unknown(`the path ${word.raw} is only known when the command runs`)
    const p = this.expandTilde(word)
    if (p === undefined) return this.unknown(`the path ${word.raw} names another user's home directory`)
    if (p === "") return
    if (!p.startsWith("/") && !this.cwdKnown) return this.unknown(`the path ${word.raw} is relative to a directory only known at run time`)
    for (const cwd of p.startsWith("/") ? ["/"] : this.cwds) {
      if (SAFE_DEVICES.test(path.resolve(cwd, p))) continue
      const candidates = word.glob ? expandGlob(p, cwd) : [p]
      if (!candidates) {
        this.unknown(`${word.raw} matches too many files to check`)
        continue
      }
      // Names a glob expanded to are entries of their directory: ask for that directory once.
      const dir = opts.dir ?? (word.glob ? false : undefined)
      for (const candidate of candidates) {
        for (const real of resolveBoth(candidate, cwd)) if (!isInside(this.project, real)) this.addExternal(real, dir)
      }
    }
  }

  read(word: Word, opts: { io?: Io } = {}): void {
    if (word.fd || (opts.io?.findPaths && word.value?.includes("{}"))) return
    // A path only known at run time is reported by checkPath; here it names nothing a rule can match.
    const p = this.expandTilde(word)
    if (!p || p === "-" || (!p.startsWith("/") && !this.cwdKnown)) return
    for (const cwd of p.startsWith("/") ? ["/"] : this.cwds) {
      if (SAFE_DEVICES.test(path.resolve(cwd, p))) continue
      for (const file of (word.glob ? expandGlob(p, cwd) : undefined) ?? [p]) {
        for (const pattern of pathPatterns(file, { cwd, worktree: this.worktree })) this.reads.add(pattern)
      }
    }
  }

  wrote(word: Word): void {
    for (const p of this.locations(word)) {
      this.written.add(p)
      const pattern = vcsConfigPattern(p, this.worktree)
      if (pattern) this.vcs.add(pattern)
    }
  }

  localModule(name: string, what: string): void {
    if (!this.cwdKnown) return this.unknown(`${what} may run a module from a directory only known at run time`)
    for (const cwd of this.cwds) {
      const local = [path.join(cwd, `${name}.py`), path.join(cwd, name)]
      if (local.some((p) => fs.existsSync(p) || this.written.has(p))) this.unknown(`${what} runs ${name} from the current directory, code that is not analysed`)
    }
  }

  arithmeticText(text: string, what: string): void {
    this.variables.arithmeticText(text, what)
  }

  setsVariable(name: string, what: string): void {
    this.variables.setsVariable(name, what)
  }

  gitConfig(): void {
    this.vcs.add(".git/config")
  }

  runsWritten(word: Word): boolean {
    return this.locations(word).some((p) => this.writtenFile(p))
  }

  writtenFile(absPath: string): boolean {
    return this.written.has(absPath) || this.before?.(absPath) === true
  }

  dirs(): string[] | undefined {
    return this.cwdKnown ? this.cwds : undefined
  }

  writes(): string[] {
    return [...this.written]
  }

  private locations(word: Word): string[] {
    const p = this.expandTilde(word)
    if (!p || (!p.startsWith("/") && !this.cwdKnown)) return []
    return (p.startsWith("/") ? ["/"] : this.cwds).flatMap((cwd) => [path.resolve(cwd, p), resolveReal(p, cwd)])
  }

  private addExternal(real: string, dir?: boolean): void {
    const pattern = externalDirectoryPattern(real, dir ?? isDirectory(real))
    if (!this.external.has(pattern)) this.external.set(pattern, real)
  }

  private expandTilde(word: Word): string | undefined {
    const v = word.value
    if (v === undefined || !word.tilde) return v
    if (v === "~" || v.startsWith("~/")) return this.home + v.slice(1)
    return undefined
  }

  private scoped(fn: () => void): void {
    const saved = { cwds: this.cwds, known: this.cwdKnown }
    try {
      fn()
    } finally {
      this.cwds = saved.cwds
      this.cwdKnown = saved.known
    }
  }

  private readonly visit = (node: Node): void => {
    switch (node.type) {
      case "command":
        return this.command(node)
      case "command_substitution":
        if (node.text.startsWith("`") && node.text.includes("\\`")) this.unknown("nested backquotes are read differently by the parser and by bash")
        return this.scoped(() => this.children(node))
      case "subshell":
      case "process_substitution":
      case "function_definition":
        return this.scoped(() => this.children(node))
      case "pipeline":
        // Each element runs in its own subshell: a cd in one does not move the others.
        for (const child of node.children) if (child) this.scoped(() => this.visit(child))
        return
      case "arithmetic_expansion":
        return this.variables.arithmetic(node)
      case "compound_statement":
        if (node.child(0)?.type === "((") return this.variables.arithmetic(node)
        return this.children(node)
      case "c_style_for_statement":
        for (let i = 0; i < node.childCount; i++) {
          const child = node.child(i)
          if (!child) continue
          if (["initializer", "condition", "update"].includes(node.fieldNameForChild(i) ?? "")) this.variables.arithmeticNodes([child])
          else this.visit(child)
        }
        return
      case "subscript":
        for (let i = 0; i < node.childCount; i++) {
          const child = node.child(i)
          if (child && node.fieldNameForChild(i) === "index") this.variables.arithmeticNodes([child])
        }
        return
      case "test_command":
        testArithmetic(node, this.variables.context())
        return this.children(node)
      case "expansion":
        this.variables.expansion(node)
        return this.children(node)
      case "for_statement":
      case "select_statement": {
        const variable = node.childForFieldName("variable")?.text
        if (variable && this.variables.isInteger(variable)) this.unknown(`${variable} is declared integer: the loop assigns it values bash evaluates as arithmetic`)
        return this.children(node)
      }
      case "file_redirect":
        return this.redirect(node)
      case "variable_assignment":
        return this.variables.assignment(node)
      case "declaration_command":
        return this.variables.declaration(node)
      case "unset_command":
        for (const child of node.namedChildren) {
          if (!child || child.type === "variable_name") continue
          const word = evalWord(child, this.visit)
          if (word.value === undefined || (!word.value.startsWith("-") && word.value.includes("["))) this.unknown(`unset ${word.raw} evaluates a subscript that may hold $(…)`)
        }
        return
      default:
        return this.children(node)
    }
  }

  private children(node: Node): void {
    for (const child of node.children) if (child) this.visit(child)
  }

  private command(node: Node): void {
    const words: Word[] = []
    const redirects: Node[] = []
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)
      if (!child) continue
      const field = node.fieldNameForChild(i)
      if (field === "name") words.push(evalWord(child.namedChildCount === 1 ? child.namedChild(0)! : child, this.visit))
      else if (field === "argument") words.push(evalWord(child, this.visit))
      else {
        if (child.type.endsWith("_redirect")) redirects.push(child)
        this.visit(child)
      }
    }
    if (words.length > 0) this.simple(words, { stdin: this.stdinOf(node, redirects) })
  }

  private simple(words: Word[], io: Io): Form[] {
    const name = words[0]
    const tokens = words.map((w) => w.value ?? w.raw)
    const found: Found = { name: name.value ?? name.raw, tokens, forms: [] }
    this.commands.push(found)
    if (name.value === undefined || name.glob) {
      this.unknown(`the command name ${name.raw} is only known when the command runs`)
      found.forms = [{ tokens, prefixLen: 0 }]
      return found.forms
    }
    if (RESERVED.has(name.value) && name.raw === name.value) {
      this.unknown(`a command named ${name.raw}, like a reserved word, is read differently by the parser and by bash`)
      this.unreadable = true
    }
    if (name.value.includes("/") && this.runsWritten(name)) this.unknown(`${name.raw} runs a file written in this session (or by this command line)`)
    // `/bin/rm` and `./rm` must meet the rules written for `rm`.
    const base = path.posix.basename(name.value) || name.value
    const variants = base === name.value ? [tokens] : [tokens, [base, ...tokens.slice(1)]]
    const outcome = handlerFor(base)?.(words, this, io) ?? {}
    if (!checksOwnPaths(base)) this.operandPaths(words.slice(1, outcome.inner ?? words.length))
    if (outcome.skip) found.skip = true
    if (outcome.inner !== undefined && outcome.inner < words.length) {
      const inner = this.simple(words.slice(outcome.inner), outcome.innerIo ?? io)
      found.forms = wrapperForms(variants, outcome.inner, inner)
    } else {
      found.forms = this.ownForms(variants, words, base)
    }
    return found.forms
  }

  /**
   * Any operand of any command that names a path outside the project is asked as
   * `external_directory` (`git clone . /elsewhere`, `sort -o /x`, `--output=../x`, `@/etc/passwd`).
   */
  private operandPaths(words: Word[]): void {
    for (const word of words) {
      const candidate = word.value === undefined ? undefined : pathOperand(word.value)
      if (candidate !== undefined) this.checkPath({ ...literalWord(candidate), glob: word.glob && literalWord(candidate).glob, tilde: candidate.startsWith("~") })
    }
  }

  private ownForms(variants: string[][], words: Word[], base: string): Form[] {
    const info = prefixInfo([base, ...words.slice(1).map((w) => (w.glob ? undefined : w.value))])
    if (info.dynamic) {
      const which = info.indexes.map((i) => words[i]).find((w) => w.value === undefined || w.glob)
      this.unknown(`${which?.raw} decides which ${base} command runs and is only known at run time`)
    }
    const last = info.indexes[info.indexes.length - 1]
    const forms: Form[] = []
    for (const tokens of variants) {
      forms.push({ tokens, prefixLen: info.dynamic ? 0 : last + 1 })
      // Options before the subcommand are dropped so `git -C x push` meets `git push *`.
      const stripped = [tokens[0], ...info.indexes.slice(1).map((i) => tokens[i]), ...tokens.slice(last + 1)]
      if (stripped.length !== tokens.length) forms.push({ tokens: stripped, prefixLen: info.dynamic ? 0 : info.indexes.length })
    }
    return forms
  }

  private stdinOf(node: Node, own: Node[]): Io["stdin"] {
    const parent = node.parent
    const wrapped = parent?.type === "redirected_statement" && parent.childForFieldName("body")?.id === node.id
    const redirects = wrapped ? [...own, ...parent.childrenForFieldName("redirect").filter((r): r is Node => r !== null)] : own
    let stdin: Io["stdin"]
    for (const r of redirects) {
      const fd = r.childForFieldName("descriptor")?.text
      if (fd !== undefined && fd !== "0") continue
      if (r.type === "herestring_redirect") {
        const word = r.namedChildren.find((c) => c !== null && c.type !== "file_descriptor")
        const value = word ? evalWord(word, pureVisit).value : undefined
        stdin = { kind: "text", text: value === undefined ? undefined : `${value}\n` }
      } else if (r.type === "heredoc_redirect") {
        stdin = { kind: "text", text: heredocText(r) }
      } else if (r.type === "file_redirect" && r.children.some((c) => c?.type === "<")) {
        const dest = r.childForFieldName("destination")
        stdin = { kind: "file", ...(dest ? { word: evalWord(dest, pureVisit) } : {}) }
      }
    }
    if (stdin) return stdin
    const element = wrapped ? parent : node
    const before = element.previousSibling
    if (element.parent?.type === "pipeline" && (before?.type === "|" || before?.type === "|&")) return { kind: "pipe" }
    return undefined
  }

  private redirect(node: Node): void {
    const dest = node.childForFieldName("destination")
    const op = node.children.find((c) => c !== null && !c.isNamed)?.type ?? ""
    for (const child of node.namedChildren) if (child && child.id !== dest?.id && child.type !== "file_descriptor") this.visit(child)
    if (!dest) return
    const word = evalWord(dest, this.visit)
    if ((op === ">&" || op === "<&") && /^(\d+-?|-)$/.test(word.value ?? "")) return
    this.checkPath(word)
    // `: > f` and a bare `> f` empty the file, as `rm` would lose it.
    if ((op === ">" || op === ">|") && word.value !== undefined && truncates(node)) this.implied(["rm", word.value])
    if (op.includes(">")) this.wrote(word)
    if (op === "<" || op === "<>") this.read(word)
  }
}

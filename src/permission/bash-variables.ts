// What the bash gate (bash-analyze.ts) knows of a command line's variables: which it set to a
// number, which are declared integer or associative, and where bash evaluates text as
// arithmetic, which runs `$(…)` hidden in a subscript (`a[$(cmd)]`). Kept apart from the walk
// over commands and paths: this state only decides whether arithmetic, assignments and
// declarations can be known before the command line runs.
import type { Node } from "./bash-parser"
import { type ArithmeticContext, arithmeticNodes, arrayArithmetic } from "./bash-syntax"
import { commandVariable, dangerousVariable } from "./bash-types"
import { evalWord, pureVisit } from "./bash-words"

/** What the variable tracking needs from the analysis it reports to. */
export interface VariableHost {
  /** Analyses a node as commands (a `$(…)` in a value or a subscript runs). */
  visit(node: Node): void
  /** The command line cannot be known before it runs: it must be asked. */
  unknown(reason: string): void
  /** Shell source found in a value (GIT_SSH_COMMAND='…'), run in a shell of its own. */
  script(text: string): void
}

export class Variables {
  /** Variables this command line set to a number: harmless in arithmetic. */
  private readonly numbers = new Set<string>()
  /**
   * Variables declared integer (`declare -i`): every assignment to them is arithmetic. bash's
   * own RANDOM, SRANDOM, OPTIND and HISTCMD evaluate what is assigned to them the same way.
   */
  private readonly integers = new Set(["RANDOM", "SRANDOM", "OPTIND", "HISTCMD"])
  /** Arrays declared associative (`declare -A`): their subscripts are strings, not arithmetic. */
  private readonly associative = new Set<string>()

  constructor(private readonly host: VariableHost) {}

  /** True when every assignment to `name` is evaluated as arithmetic. */
  isInteger(name: string): boolean {
    return this.integers.has(name)
  }

  /**
   * An arithmetic context (`$((…))`, `((…))`, a subscript, `[[ -eq ]]`, `let`): bash evaluates
   * the value of every variable named there as arithmetic again, and `a[$(cmd)]` inside it
   * runs cmd. Only variables this command line set to a number are known to be harmless.
   */
  arithmetic(node: Node): void {
    this.arithmeticNodes(node.namedChildren.filter((c): c is Node => c !== null))
  }

  arithmeticNodes(nodes: Node[]): void {
    arithmeticNodes(nodes, this.context())
  }

  context(): ArithmeticContext {
    return { visit: (n) => this.host.visit(n), unknown: (reason) => this.host.unknown(reason), numbers: this.numbers }
  }

  /** Literal arithmetic text (`let 'x=a[$(cmd)]'`, a `declare -i` value). */
  arithmeticText(text: string, what: string): void {
    if (/[$`[]/.test(text)) return this.host.unknown(`${what} ${text} is evaluated as arithmetic and may run $(…)`)
    for (const name of text.match(/[A-Za-z_]\w*/g) ?? []) {
      if (!this.numbers.has(name) && !/^(0x|0b)/i.test(name)) return this.host.unknown(`${what} ${text}: ${name} is evaluated as arithmetic, and its value may hold $(…)`)
    }
  }

  /**
   * `${!x}` names a variable by the value of x, and `${x@P}` expands x's value like a prompt,
   * $(…) included. The offset and length of `${s:off:len}` are arithmetic, and so is the value
   * `${n:=v}` assigns to an integer variable.
   */
  expansion(node: Node): void {
    const first = node.child(1)
    const text = node.text
    if (first?.type === "!" && !/[@*]\]?\}$/.test(text)) this.host.unknown(`${text} expands a variable named by another variable's value`)
    if (/@[PAKa-zE]?P\}$|@P\}$/.test(text)) this.host.unknown(`${text} expands a value as a prompt, running any $(…) in it`)
    let slice = false
    const name = node.namedChildren.find((c) => c?.type === "variable_name")?.text
    for (const child of node.children) {
      if (!child) continue
      if (child.type === ":") slice = true
      else if ((child.type === ":=" || child.type === "=") && name && this.integers.has(name)) slice = true
      else if (slice && child.isNamed) this.arithmeticNodes([child])
    }
  }

  assignment(node: Node): void {
    const name = node.childForFieldName("name")
    const value = node.childForFieldName("value")
    if (name && commandVariable(name.text)) {
      // GIT_SSH_COMMAND='…', GIT_PAGER=cat: the command programs will run is analysed as such.
      const command = value ? evalWord(value, pureVisit).value : ""
      if (command === undefined) this.host.unknown(`setting ${name.text} to a command only known at run time`)
      else this.host.script(command)
    } else if (name && dangerousVariable(name.text)) this.host.unknown(`setting ${name.text} changes which programs run or how`)
    if (name?.type === "variable_name" && value?.type === "array") {
      arrayArithmetic(value, { name: name.text, associative: this.associative.has(name.text), integer: this.integers.has(name.text) }, this.context())
    }
    if (name?.type === "variable_name") {
      if (value && (value.type === "number" || value.type === "arithmetic_expansion")) this.numbers.add(name.text)
      else this.numbers.delete(name.text)
      if (this.integers.has(name.text) && value && value.type !== "number") {
        if (value.type === "word" || value.type === "raw_string") this.arithmeticText(evalWord(value, pureVisit).value ?? value.text, name.text + "=")
        else this.arithmeticNodes([value])
      }
    }
    for (const child of node.namedChildren) if (child && child.id !== name?.id) evalWord(child, this.host.visit)
    if (name && name.type !== "variable_name") evalWord(name, this.host.visit)
  }

  /** A builtin (read, mapfile, printf -v, wait -p) sets `name`: arithmetic when it is declared integer. */
  setsVariable(name: string, what: string): void {
    if (this.integers.has(name)) this.host.unknown(`${what} sets ${name}, declared integer: the value is evaluated as arithmetic`)
  }

  declaration(node: Node): void {
    const keyword = node.child(0)?.text ?? "declare"
    const flags = node.namedChildren.filter((c): c is Node => c !== null && c.type === "word" && c.text.startsWith("-")).map((c) => c.text)
    const integer = keyword !== "export" && flags.some((f) => /^-[a-zA-Z]*i/.test(f))
    const associative = keyword !== "export" && flags.some((f) => /^-[a-zA-Z]*A/.test(f))
    for (const child of node.namedChildren) {
      if (!child) continue
      if (child.type === "variable_assignment") {
        const name = child.childForFieldName("name")
        if (integer && name?.type === "variable_name") this.integers.add(name.text)
        if (associative && name?.type === "variable_name") this.associative.add(name.text)
        this.assignment(child)
      } else if (child.type === "variable_name") {
        if (integer) this.integers.add(child.text)
        if (associative) this.associative.add(child.text)
      } else {
        const word = evalWord(child, this.host.visit)
        if (word.value === undefined) this.host.unknown(`${keyword} ${word.raw} sets variables only known at run time`)
        else if (keyword !== "export" && /^-[a-zA-Z]*n/.test(word.value)) this.host.unknown(`${keyword} -n makes a variable stand for another`)
        else if (!word.value.startsWith("-") && word.value.includes("[")) this.host.unknown(`${keyword} ${word.raw} names a variable with a subscript, evaluated as arithmetic`)
        else if (integer && word.value.includes("=")) this.arithmeticText(word.value.slice(word.value.indexOf("=") + 1), `${keyword} -i`)
      }
    }
  }
}

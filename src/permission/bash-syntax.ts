// Syntax helpers of the bash gate (bash-analyze.ts): redirections that empty a file, the path an
// operand may name, reserved words after `time`/`!`/`coproc`, here-document text, the forms a
// wrapped command is matched under, and arithmetic contexts, which run `$(…)` hidden in the
// values of the variables they name.
import type { Node } from "./bash-parser"

/** At most this many forms of one command are matched against the rules. */
const MAX_FORMS = 12

/** One way of writing a command for rule matching; `prefixLen` words name it (0: none). */
export interface Form {
  tokens: string[]
  prefixLen: number
}

/** What the arithmetic walk needs from the analysis it reports to. */
export interface ArithmeticContext {
  /** Analyses a node as commands (a `$(…)` inside arithmetic runs). */
  visit(node: Node): void
  /** The command line cannot be known before it runs: it must be asked. */
  unknown(reason: string): void
  /** Variables this command line set to a number: harmless in arithmetic. */
  numbers: Set<string>
}

/**
 * Arithmetic (`$((…))`, `((…))`, `let`, subscripts) evaluates the value of every variable it
 * names as arithmetic again, and `a[$(cmd)]` inside such a value runs cmd.
 */
export function arithmeticNodes(nodes: Node[], ctx: ArithmeticContext): void {
  const walk = (n: Node): void => {
    switch (n.type) {
      case "command_substitution":
      case "process_substitution":
        return ctx.visit(n)
      case "variable_name":
      case "word":
        if (/^[A-Za-z_]\w*$/.test(n.text) && !ctx.numbers.has(n.text)) ctx.unknown(`${n.text} is evaluated as arithmetic, and its value may hold $(…)`)
        else if (n.type === "word" && !/^[\w#.@*]*$/.test(n.text)) ctx.unknown(`${n.text} is evaluated as arithmetic and may hold $(…)`)
        return
      case "simple_expansion":
      case "expansion": {
        const name = n.namedChildren.find((c) => c?.type === "variable_name" || c?.type === "special_variable_name")
        if (name?.type === "special_variable_name" && /^[#?$!]$/.test(name.text) && n.namedChildCount === 1) return
        // ${#x} is a length.
        if (n.type === "expansion" && n.child(1)?.type === "#" && n.namedChildCount === 1) return
        if (name?.type === "variable_name" && n.namedChildCount === 1 && ctx.numbers.has(name.text)) return
        ctx.unknown(`${n.text} is evaluated as arithmetic, and its value may hold $(…)`)
        return ctx.visit(n)
      }
      case "string":
      case "raw_string":
      case "ansi_c_string":
      case "concatenation":
        ctx.unknown(`${n.text} is evaluated as arithmetic and may hold $(…)`)
        return ctx.visit(n)
      case "subscript":
        return ctx.visit(n)
      case "variable_assignment": {
        const name = n.childForFieldName("name")
        const value = n.childForFieldName("value")
        for (const child of n.namedChildren) if (child && child.id !== name?.id) walk(child)
        if (name && name.type !== "variable_name") walk(name)
        else if (name && value?.type === "number") ctx.numbers.add(name.text)
        return
      }
      default:
        for (const child of n.namedChildren) if (child) walk(child)
    }
  }
  for (const node of nodes) walk(node)
}

/**
 * `arr=([i]=v …)`: the subscripts of an indexed array are arithmetic (those of an array the line
 * declared associative are strings), and so are the values of an integer array.
 */
export function arrayArithmetic(array: Node, opts: { name: string; associative: boolean; integer: boolean }, ctx: ArithmeticContext): void {
  for (const element of array.namedChildren) {
    if (!element) continue
    const parts = element.type === "concatenation" ? element.children.filter((c): c is Node => c !== null) : [element]
    const close = parts.findIndex((p) => p.text.startsWith("]"))
    if (parts[0]?.text === "[" && close > 0 && !opts.associative) arithmeticNodes(parts.slice(1, close), ctx)
    if (opts.integer && element.type !== "number") ctx.unknown(`${opts.name} is declared integer: the array's values are evaluated as arithmetic`)
  }
}

/** `[[ x -eq y ]]` evaluates both sides as arithmetic, `[[ -v a[i] ]]` the subscript. */
export function testArithmetic(node: Node, ctx: ArithmeticContext): void {
  const walk = (n: Node): void => {
    if (n.type === "binary_expression") {
      const op = n.childForFieldName("operator")?.text ?? ""
      if (/^-(eq|ne|lt|le|gt|ge)$/.test(op)) {
        for (const side of ["left", "right"]) {
          const operand = n.childForFieldName(side)
          if (operand && operand.type !== "number") arithmeticNodes([operand], ctx)
        }
        return
      }
    }
    if (n.type === "unary_expression" && n.childForFieldName("operator")?.text === "-v") {
      const operand = n.namedChildren.find((c) => c !== null && c.type !== "test_operator")
      if (operand && (operand.text.includes("[") || operand.type !== "word")) ctx.unknown(`[[ -v ${operand.text} ]] evaluates a subscript that may hold $(…)`)
    }
    for (const child of n.namedChildren) if (child) walk(child)
  }
  walk(node)
}

/** The redirect empties its file: it belongs to no command, or to `:` / `true`. */
export function truncates(redirect: Node): boolean {
  const parent = redirect.parent
  if (parent?.type !== "redirected_statement") return false
  const body = parent.childForFieldName("body")
  if (!body) return true
  return body.type === "command" && body.namedChildCount === 1 && [":", "true"].includes(body.childForFieldName("name")?.text ?? "")
}

/** The path an operand may name: itself, an option's value (`--out=x`, `-o/x`), curl's `@file`. */
export function pathOperand(v: string): string | undefined {
  let candidate = v
  if (/^--[^=]+=/.test(v)) candidate = v.slice(v.indexOf("=") + 1)
  else if (/^-[^-]/.test(v)) candidate = v.includes("=") ? v.slice(v.indexOf("=") + 1) : v.slice(2)
  if (candidate.startsWith("@")) candidate = candidate.slice(1)
  if (/^file:\/\//i.test(candidate)) candidate = candidate.slice(7)
  if (candidate === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(candidate)) return undefined
  if (/^[^/~.][^/]*:/.test(candidate)) return undefined
  if (candidate === ".." || candidate === "~" || /^(\/|~\/|\.\.?\/)/.test(candidate)) return candidate
  return /\s/.test(candidate) || !candidate.includes("/") ? undefined : candidate
}

// Words bash reads as the start of a compound command, where a command name may stand.
export const RESERVED = new Set(["{", "}", "(", ")", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "select", "function", "in", "[[", "]]", "((", "!"])
const COMPOUND_START = new Set(["{", "if", "for", "while", "until", "case", "select", "function", "[[", "(("])

/** [start, end) of `time [-p]`, `coproc [NAME]` and `!` keywords that precede a compound command. */
export function keywordPrefixes(root: Node): [number, number][] {
  const out: [number, number][] = []
  const walk = (node: Node) => {
    if (node.type === "command") {
      const words = node.children.filter((c): c is Node => c !== null && (c.type === "command_name" || c.type === "word"))
      const name = words[0]?.text
      let i = 1
      if (name === "time") while (words[i]?.text === "-p" || words[i]?.text === "--") i++
      else if (name === "coproc" && words[i] && !COMPOUND_START.has(words[i].text) && COMPOUND_START.has(words[i + 1]?.text ?? "")) i++
      if ((name === "time" || name === "coproc") && words[i] && (COMPOUND_START.has(words[i].text) || words[i].text === "!")) {
        out.push([node.startIndex, words[i].startIndex])
        return
      }
    }
    if (node.type === "negated_command") {
      const inner = node.namedChildren.find((c) => c !== null)
      const name = inner?.type === "command" ? inner.childForFieldName("name")?.text : undefined
      if (name !== undefined && COMPOUND_START.has(name)) {
        out.push([node.startIndex, node.startIndex + 1])
        return
      }
    }
    for (const child of node.children) if (child) walk(child)
  }
  walk(root)
  return out
}

export function heredocText(redirect: Node): string | undefined {
  const start = redirect.children.find((c) => c?.type === "heredoc_start")?.text ?? ""
  const body = redirect.children.find((c) => c?.type === "heredoc_body")
  if (!body) return ""
  if (/['"\\]/.test(start)) return body.text
  if (body.namedChildren.some((c) => c !== null && c.type !== "heredoc_content")) return undefined
  return body.text.replace(/\\([$`\\\n])/g, (_, c: string) => (c === "\n" ? "" : c))
}

export function wrapperForms(variants: string[][], at: number, inner: Form[]): Form[] {
  const forms: Form[] = []
  for (const tokens of variants) {
    for (const form of inner) {
      forms.push({ tokens: [...tokens.slice(0, at), ...form.tokens], prefixLen: form.prefixLen ? at + form.prefixLen : 0 })
      if (at > 1) forms.push({ tokens: [tokens[0], ...form.tokens], prefixLen: form.prefixLen ? 1 + form.prefixLen : 0 })
    }
  }
  const seen = new Set<string>()
  return forms.filter((f) => {
    const key = `${f.prefixLen}:${f.tokens.join(" ")}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  }).slice(0, MAX_FORMS)
}

export function unique<T>(items: T[]): T[] {
  return [...new Set(items)]
}

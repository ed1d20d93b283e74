// Shell words as bash sees them after quote removal: `r''m`, `"rm"`, `\rm` and
// `$'\x72m'` are all the word `rm`. A word built from an expansion, a substitution or a
// brace expansion has no value: it is only known when the command runs.
import type { Node } from "./bash-parser"

export interface Word {
  /** The word after quote removal; undefined when it is only known at run time. */
  value?: string
  /** The source text. */
  raw: string
  /** Holds an unquoted `*`, `?` or `[`: the shell matches it against file names. */
  glob: boolean
  /** Starts with an unquoted `~`. */
  tilde: boolean
  /** A process substitution: a pipe the shell names, not a file the command chose. */
  fd?: boolean
}

/** Walks nested code found inside a word (command substitutions and the like). */
export type Visit = (node: Node) => void

interface Piece {
  value?: string
  /** The word as written with quoted and escaped characters replaced by `_`. */
  shape: string
}

export function evalWord(node: Node, visit: Visit): Word {
  const piece = evalPiece(node, visit)
  const brace = hasBraceExpansion(piece.shape)
  return {
    value: brace ? undefined : piece.value,
    raw: node.text,
    glob: /[*?[]/.test(piece.shape),
    tilde: piece.shape.startsWith("~"),
    ...(node.type === "process_substitution" ? { fd: true } : {}),
  }
}

/** An unquoted `{a,b}` or `{1..3}`: one word becomes several. A linear scan, as words can be long. */
function hasBraceExpansion(shape: string): boolean {
  let open = shape.indexOf("{")
  while (open >= 0) {
    const next = shape.slice(open + 1).search(/[{}]/)
    if (next < 0) return false
    const end = open + 1 + next
    if (shape[end] === "}") {
      const inside = shape.slice(open + 1, end)
      if (inside.includes(",") || inside.includes("..")) return true
    }
    open = shape.indexOf("{", end)
  }
  return false
}

/** A word made from a value alone (an option's attached argument, a split string). */
export function literalWord(value: string): Word {
  return { value, raw: value, glob: /[*?[]/.test(value), tilde: value.startsWith("~") }
}

export const pureVisit: Visit = () => {}

function evalPiece(node: Node, visit: Visit): Piece {
  const text = node.text
  switch (node.type) {
    case "word":
      return { value: text.replace(/\\([\s\S])/g, (_, c: string) => (c === "\n" ? "" : c)), shape: text.replace(/\\[\s\S]/g, "__") }
    case "number":
      return { value: text, shape: text }
    case "raw_string":
      return { value: text.slice(1, -1), shape: blank(text) }
    case "ansi_c_string":
      return { value: decodeAnsiC(text.slice(2, -1)), shape: blank(text) }
    case "string":
      return { value: evalDoubleQuoted(node, visit), shape: blank(text) }
    case "concatenation": {
      let value: string | undefined = ""
      let shape = ""
      for (const child of node.children) {
        if (!child) continue
        const piece = evalPiece(child, visit)
        value = value === undefined || piece.value === undefined ? undefined : value + piece.value
        shape += piece.shape
      }
      return { value, shape }
    }
    default:
      // Expansions, substitutions, brace ranges and anything unexpected.
      visit(node)
      return { value: undefined, shape: "_" }
  }
}

function evalDoubleQuoted(node: Node, visit: Visit): string | undefined {
  let value: string | undefined = ""
  const last = node.childCount - 1
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)
    if (!child || ((i === 0 || i === last) && child.type === '"')) continue
    if (child.type === "string_content") {
      if (value !== undefined) value += child.text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c))
    } else if (!child.isNamed) {
      if (value !== undefined) value += child.text
    } else {
      visit(child)
      value = undefined
    }
  }
  return value
}

function blank(text: string): string {
  return "_".repeat(text.length)
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}

const NUMERIC_ESCAPES: Record<string, RegExp | undefined> = { x: /x[0-9a-fA-F]{1,2}/y, u: /u[0-9a-fA-F]{1,4}/y, U: /U[0-9a-fA-F]{1,8}/y }

function stickyMatch(re: RegExp | undefined, text: string, at: number): string | undefined {
  if (!re) return undefined
  re.lastIndex = at
  return re.exec(text)?.[0]
}

/** `$'…'` as bash decodes it. A NUL ends the string, as in bash; `\cX` is left unknown. */
export function decodeAnsiC(body: string): string | undefined {
  let out = ""
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== "\\") {
      out += body[i]
      continue
    }
    const next = body[++i]
    if (next === undefined) return out + "\\"
    if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next]
      continue
    }
    if (next === "c") return undefined
    const digits = stickyMatch(/[0-7]{1,3}/y, body, i) ?? stickyMatch(NUMERIC_ESCAPES[next], body, i)
    if (!digits) {
      out += "\\" + next
      continue
    }
    const code = /^[0-7]/.test(digits) ? parseInt(digits, 8) & 0xff : parseInt(digits.slice(1), 16)
    if (code === 0) return out
    if (code > 0x10ffff) return undefined
    out += String.fromCodePoint(code)
    i += digits.length - 1
  }
  return out
}

export interface ParsedOption {
  name: string
  value?: Word
}

export interface ScanResult {
  /** Index of the first operand (or words.length). */
  index: number
  options: ParsedOption[]
  /** Scanning stopped at a word only known at run time. */
  dynamic: boolean
}

/**
 * Skips the options of a command from `from`: short clusters (`-abc`), long options
 * (`--name=value`), and the values of the listed options. `shortValue` lists the short
 * letters that take a value, `longValue` the long names. Stops at the first operand, at
 * `--`, or at a word only known at run time (which might be an option or the operand).
 */
export function scanOptions(words: Word[], from: number, shortValue = "", longValue: string[] = [], abbrev: string[] | false = false): ScanResult {
  const options: ParsedOption[] = []
  for (let i = from; i < words.length; i++) {
    const word = words[i]
    const v = word.value
    if (v === undefined) return { index: i, options, dynamic: true }
    if (v === "--") return { index: i + 1, options, dynamic: false }
    if (v.length < 2 || !v.startsWith("-")) return { index: i, options, dynamic: false }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=")
      const name = abbrev ? longName(eq > 0 ? v.slice(0, eq) : v, [...longValue, ...abbrev]) : eq > 0 ? v.slice(0, eq) : v
      if (eq > 0) options.push({ name, value: literalWord(v.slice(eq + 1)) })
      else if (longValue.includes(name)) options.push({ name, value: words[++i] })
      else options.push({ name })
      continue
    }
    for (let j = 1; j < v.length; j++) {
      const letter = v[j]
      if (!shortValue.includes(letter)) {
        options.push({ name: `-${letter}` })
        continue
      }
      const attached = v.slice(j + 1)
      options.push({ name: `-${letter}`, value: attached ? literalWord(attached) : words[++i] })
      break
    }
  }
  return { index: words.length, options, dynamic: false }
}

/**
 * A long option as getopt_long and git's parse-options read it: an unambiguous prefix of a
 * known option (`--to-comm` is `--to-command`). An ambiguous prefix makes the program fail,
 * so any candidate will do; the first that takes a value is the one `known` lists first.
 */
export function longName(name: string, known: string[]): string {
  if (known.includes(name) || name.length < 3) return name
  return known.find((k) => k.startsWith(name)) ?? name
}

/** Every operand of a command whose options may follow its operands (GNU style). */
export function operands(words: Word[], from: number, shortValue = "", longValue: string[] = [], abbrev: string[] | false = false): { operands: Word[]; options: ParsedOption[]; dynamic: boolean } {
  const found: Word[] = []
  const options: ParsedOption[] = []
  let i = from
  let dynamic = false
  while (i < words.length) {
    const scan = scanOptions(words, i, shortValue, longValue, abbrev)
    options.push(...scan.options)
    if (scan.index >= words.length) break
    if (scan.dynamic) dynamic = true
    const endOfOptions = scan.index > 0 && words[scan.index - 1]?.value === "--" && !scan.dynamic
    if (endOfOptions) {
      found.push(...words.slice(scan.index))
      break
    }
    found.push(words[scan.index])
    i = scan.index + 1
  }
  return { operands: found, options, dynamic }
}

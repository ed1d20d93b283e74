// A Makefile read as the commands `make` would run: the recipes of the goals and of every
// target they depend on (pattern rules always count), with variables expanded, and every
// `$(shell …)` and `VAR != …` the file holds. What make would compute and the analysis cannot
// (other functions, a variable the file does not set) becomes a shell expansion, so a command
// whose name it builds is asked about; includes, another SHELL and `$(eval …)` are asked.
import type { Analyzer } from "./bash-types"

interface Rule {
  prereqs: string[]
  recipes: string[]
}

const MAX_DEPTH = 16
// The defaults of make's own variables that recipes name most.
const DEFAULTS: Record<string, string> = { MAKE: "make", CC: "cc", CXX: "g++", CPP: "cc -E", AR: "ar", RM: "rm -f", LD: "ld", AS: "as", FC: "f77", LEX: "lex", YACC: "yacc", MAKEFLAGS: "", MFLAGS: "", SHELL: "/bin/sh", CURDIR: "." }
const SPECIAL = new Set([".PHONY", ".SUFFIXES", ".PRECIOUS", ".INTERMEDIATE", ".SECONDARY", ".DELETE_ON_ERROR", ".IGNORE", ".SILENT", ".EXPORT_ALL_VARIABLES", ".NOTPARALLEL", ".ONESHELL", ".POSIX", ".LOW_RESOLUTION_TIME", ".SECONDEXPANSION", ".NOTINTERMEDIATE", ".WAIT"])
// Functions whose result the analysis does not compute; their arguments are still read for `$(shell …)`.
const UNSAFE = new Set(["eval", "file", "guile", "value", "load"])
const ASSIGN = /^(?:(?:override|export|private)\s+)*([^\s:#=]+)\s*(\+=|\?=|:::=|::=|:=|!=|=)\s*(.*)$/s

/**
 * Analyses the commands `make goals…` runs from makefile `text` (`what` names it in reasons),
 * `overrides` being the command line's `VAR=value` words.
 */
export function makefileCommands(text: string, goals: string[], overrides: Map<string, string>, a: Analyzer, what: string): void {
  const vars = new Map<string, string>(overrides)
  const rules = new Map<string, Rule[]>()
  const anyTarget: string[] = []
  let first: string | undefined
  let current: Rule | undefined
  let depth = 0

  const dynamic = (name: string) => `\${__make_${name.replace(/\W/g, "_")}}`

  const expand = (s: string): string => {
    if (++depth > MAX_DEPTH) {
      depth--
      a.unknown(`${what}: variables nest too deeply to analyse`)
      return dynamic("deep")
    }
    let out = ""
    for (let i = 0; i < s.length; i++) {
      if (s[i] !== "$") {
        out += s[i]
        continue
      }
      const c = s[++i]
      if (c === undefined) break
      if (c === "$") out += "$"
      else if (c === "(" || c === "{") {
        const end = closing(s, i, c, c === "(" ? ")" : "}")
        out += reference(s.slice(i + 1, end))
        i = end
      } else out += reference(c)
    }
    depth--
    return out
  }

  const reference = (inner: string): string => {
    if (/^[@<^?*+|%][DF]?$/.test(inner)) return "target"
    const fn = /^([a-z-]+)[ \t]+([\s\S]*)$/.exec(inner)
    if (fn) {
      const [, name, args] = fn
      if (name === "shell") {
        a.script(expand(args))
        return dynamic("shell")
      }
      if (UNSAFE.has(name)) a.unknown(`${what} uses $(${name} …), which makes text the analysis does not follow`)
      expand(args)
      if (name === "call") {
        const called = vars.get(args.split(",")[0].trim())
        if (called !== undefined) expand(called)
      }
      return dynamic(name)
    }
    const name = expand(inner)
    if (name.includes(":")) return dynamic("ref")
    const value = vars.get(name)
    if (value !== undefined) return expand(value)
    return Object.hasOwn(DEFAULTS, name) ? DEFAULTS[name] : dynamic(name)
  }

  const assign = (line: string): boolean => {
    const m = ASSIGN.exec(line)
    if (!m) return false
    const [, name, op, value] = m
    if (name === "SHELL" && !/^(\/usr)?\/bin\/(ba)?sh$/.test(value.trim())) a.unknown(`${what} sets SHELL: its recipes run with another program`)
    if (name === ".SHELLFLAGS" || name === ".RECIPEPREFIX") a.unknown(`${what} sets ${name}, which changes how recipes are read`)
    // The value is read now even where make would wait, so a $(shell …) in it counts.
    const expanded = expand(value)
    if (op === "!=") a.script(expanded)
    if (overrides.has(name)) return true
    if (op === "+=") vars.set(name, `${vars.get(name) ?? ""} ${value}`)
    else if (op !== "?=" || !vars.has(name)) vars.set(name, op === "=" || op === "?=" ? value : expanded)
    return true
  }

  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]
    const recipe = line.startsWith("\t") && current !== undefined
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) line = recipe ? line.slice(0, -1) + lines[++i].replace(/^\t/, "") : `${line.slice(0, -1)} ${lines[++i].trim()}`
    if (recipe) {
      current!.recipes.push(line.slice(1))
      continue
    }
    line = line.replace(/(^|[^\\])#.*$/s, "$1").trim()
    if (line === "") continue
    current = undefined
    const word = line.split(/\s/)[0]
    if (word === "define") {
      const name = line.split(/\s+/)[1] ?? ""
      const body: string[] = []
      while (i + 1 < lines.length && !/^\s*endef\b/.test(lines[i + 1])) body.push(lines[++i])
      i++
      assign(`${name} = ${body.join("\n")}`)
      continue
    }
    if (["include", "-include", "sinclude"].includes(word)) {
      a.unknown(`${what} includes another makefile, which is not analysed`)
      continue
    }
    if (/^(ifeq|ifneq|ifdef|ifndef|else|endif|endef|export|unexport|vpath)$/.test(word)) continue
    if (assign(line)) continue
    const colon = ruleColon(line)
    if (colon < 0) {
      // A line that is neither: make reads `$(shell …)` and `$(eval …)` in it all the same.
      expand(line)
      continue
    }
    let rest = line.slice(colon + 1).replace(/^:/, "")
    // `target: VAR = value` sets a variable for that target.
    if (ASSIGN.test(rest.trim()) && !rest.includes(";")) {
      assign(rest.trim())
      continue
    }
    const semi = rest.indexOf(";")
    const inline = semi >= 0 ? rest.slice(semi + 1) : undefined
    if (semi >= 0) rest = rest.slice(0, semi)
    const targets = expand(line.slice(0, colon)).split(/\s+/).filter(Boolean)
    const rule: Rule = { prereqs: expand(rest).split(/\s+/).filter((p) => p && p !== "|"), recipes: inline?.trim() ? [inline] : [] }
    for (const target of targets) {
      if (SPECIAL.has(target)) continue
      if (target.includes("%") || target === ".DEFAULT" || /^\.[^./%]+(\.[^./%]+)?$/.test(target)) anyTarget.push(target)
      else first ??= target
      rules.set(target, [...(rules.get(target) ?? []), rule])
    }
    current = rule
  }

  const wanted = goals.length > 0 ? goals : [vars.get(".DEFAULT_GOAL") ?? first].filter((g): g is string => g !== undefined)
  const seen = new Set<string>()
  const queue = [...wanted, ...anyTarget]
  const commands: string[] = []
  while (queue.length > 0) {
    const target = queue.shift()!
    if (seen.has(target)) continue
    seen.add(target)
    for (const rule of rules.get(target) ?? []) {
      commands.push(...rule.recipes)
      queue.push(...rule.prereqs)
    }
  }
  for (const recipe of commands) {
    const command = expand(recipe).replace(/^[\s@+-]+/, "")
    if (command.trim()) a.script(command)
  }
}

/** Index of the `:` that separates a rule's targets from its prerequisites, or -1. */
function ruleColon(line: string): number {
  let depth = 0
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c === "$" && (line[i + 1] === "(" || line[i + 1] === "{")) {
      depth++
      i++
    } else if ((c === ")" || c === "}") && depth > 0) depth--
    else if (c === ":" && depth === 0 && line[i + 1] !== "=") return i
  }
  return -1
}

/** Index of the delimiter closing the reference opened at `open`. */
function closing(s: string, open: number, left: string, right: string): number {
  let depth = 0
  for (let i = open; i < s.length; i++) {
    if (s[i] === left) depth++
    else if (s[i] === right && --depth === 0) return i
  }
  return s.length
}

// Project files that name commands to run: package.json scripts (`npm test`, `yarn x`,
// `pnpm run x`, lifecycle scripts of `npm install`) and Makefile recipes (`make x`). When this
// wright wrote the file (a tool, an earlier command), the commands it holds are analysed as
// shell code, so a `curl … | sh` placed in a recipe meets the rules written for curl. Files
// the session did not write are the project's own and are not read: `npm test` stays as cheap
// and as allowed as before.
import fs from "node:fs"
import path from "node:path"
import { makefileCommands } from "./bash-makefile"
import type { Analyzer, Handler } from "./bash-types"
import { type Word, operands } from "./bash-words"

const MAX_BYTES = 1 << 20

/** This wright wrote `file`, or the file a symbolic link there points to. */
export function sessionWrote(a: Analyzer, file: string): boolean {
  if (a.writtenFile(file)) return true
  if (!fs.existsSync(file)) return false
  try {
    const real = fs.realpathSync(file)
    return real !== file && a.writtenFile(real)
  } catch {
    return false
  }
}

/** The text of a file, or undefined (with the reason asked) when it cannot be read. */
export function readProjectFile(file: string, a: Analyzer, what: string): string | undefined {
  try {
    const stat = fs.statSync(file)
    if (stat.size > MAX_BYTES) return void a.unknown(`${what} ${file} is too large to analyse`)
    return fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

// Lifecycle scripts npm, yarn, pnpm and bun run for the project itself on install.
const INSTALL = ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"]

const NPM: Record<string, string[]> = {
  test: ["test"], t: ["test"], tst: ["test"], start: ["start"], stop: ["stop"], restart: ["restart", "stop", "start"],
  install: INSTALL, i: INSTALL, in: INSTALL, isnt: INSTALL, add: INSTALL, ci: INSTALL, "clean-install": INSTALL, ic: INSTALL,
  "install-clean": INSTALL, rebuild: INSTALL, "install-test": [...INSTALL, "test"], it: [...INSTALL, "test"],
  pack: ["prepack", "prepare", "postpack"], publish: ["prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"],
  version: ["preversion", "version", "postversion"],
}
const RUN = new Set(["run", "run-script", "rum", "urn"])

// Commands of yarn and pnpm that are not scripts: any other first word names a script.
const BUILTIN = new Set(
  ("add audit autoclean bin cache check config create dedupe deploy dlx doctor env exec explain fetch global help import info init " +
    "install link licenses list login logout node npm outdated owner pack patch patch-commit plugin policies prune publish rebuild " +
    "recursive remove root search server set setup store tag team unlink unplug up update upgrade upgrade-interactive version " +
    "versions why workspace workspaces i ci ls rm uninstall remove un outdated").split(" "),
)

/** The scripts `words` runs (npm/yarn/pnpm/bun, `sub` at index `at`), or undefined. */
function scriptNames(manager: string, words: Word[], at: number): string[] | undefined {
  const sub = words[at]?.value
  if (sub === undefined) return manager === "yarn" && at >= words.length ? INSTALL : undefined
  if (RUN.has(sub)) {
    const { operands: names } = operands(words, at + 1, "", ["--workspace", "-w", "--filter", "-F"])
    const name = names[0]?.value
    return name === undefined ? undefined : [name]
  }
  if (manager === "bun") return ["install", "i", "add"].includes(sub) ? INSTALL : undefined
  if (Object.hasOwn(NPM, sub)) return NPM[sub]
  if (manager === "npm") return undefined
  return BUILTIN.has(sub) || sub.startsWith("-") ? undefined : [sub]
}

/** The value of option `name` anywhere among `words` (`--prefix x`, `--prefix=x`); null when only known at run time. */
function optionValue(words: Word[], names: string[]): string | null | undefined {
  for (let i = 1; i < words.length; i++) {
    const v = words[i].value
    if (v === undefined) continue
    const name = names.find((n) => v === n || v.startsWith(`${n}=`))
    if (!name) continue
    const value = v === name ? words[i + 1]?.value : v.slice(name.length + 1)
    return value === undefined ? null : value
  }
  return undefined
}

// Settings files that make a package manager run other code: npm's script-shell and
// node-options, yarn's yarnPath and plugins, pnpm's hooks file.
const RC_FILES = [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".pnpmfile.mjs"]

/** The nearest package.json at or above `dir`. */
function packageJson(dir: string): string | undefined {
  for (let d = dir, i = 0; i < 64; i++) {
    const file = path.join(d, "package.json")
    if (fs.existsSync(file)) return file
    const up = path.dirname(d)
    if (up === d) return undefined
    d = up
  }
  return undefined
}

/**
 * `npm test`, `yarn x`, `pnpm run x`, `npm install`: when this wright wrote the package.json
 * they read, the scripts they run (with their pre and post scripts) are analysed as commands.
 */
export function packageScripts(manager: string, dirOption: string[]): (words: Word[], a: Analyzer, at: number) => void {
  return (words, a, at) => {
    const dirValue = optionValue(words, dirOption)
    if (dirValue === null || !a.dirs()) return a.unknown(`${manager} runs in a directory only known at run time, whose package.json cannot be read`)
    for (const cwd of a.dirs() ?? []) {
      const dir = dirValue ? path.resolve(cwd, dirValue) : cwd
      for (const rc of RC_FILES) {
        for (const file of new Set([path.join(cwd, rc), path.join(dir, rc)])) {
          if (sessionWrote(a, file)) a.unknown(`${manager} reads ${file}, written in this session, which can make it run other programs`)
        }
      }
    }
    const names = scriptNames(manager, words, at)
    if (!names) return
    for (const cwd of a.dirs() ?? []) {
      const file = packageJson(dirValue ? path.resolve(cwd, dirValue) : cwd)
      if (!file || !sessionWrote(a, file)) continue
      const text = readProjectFile(file, a, `${manager} reads`)
      let scripts: unknown
      try {
        scripts = text === undefined ? undefined : (JSON.parse(text) as { scripts?: unknown }).scripts
      } catch {
        a.unknown(`${manager} runs scripts from ${file}, written in this session, which is not valid JSON`)
        continue
      }
      if (scripts === undefined || scripts === null) continue
      if (typeof scripts !== "object") {
        a.unknown(`${manager} runs scripts from ${file}, whose "scripts" is not an object`)
        continue
      }
      const table = scripts as Record<string, unknown>
      for (const name of names.flatMap((n) => [`pre${n}`, n, `post${n}`])) {
        const script = Object.hasOwn(table, name) ? table[name] : undefined
        if (typeof script === "string") a.script(script)
        else if (script !== undefined) a.unknown(`the script ${name} in ${file} is not a string`)
      }
    }
  }
}

const MAKE_VALUE = ["--eval", "--file", "--makefile", "--directory", "--include-dir", "--jobs", "--load-average", "--old-file", "--assume-old", "--what-if", "--new-file", "--assume-new"]

/** `make [targets]`: `--eval` text, and the recipes of a Makefile this wright wrote. */
export const make: Handler = (words, a, io) => {
  const { options, operands: rest, dynamic } = operands(words, 1, "CfIjloWE", MAKE_VALUE)
  const dirs: string[] = []
  const files: string[] = []
  const overrides = new Map<string, string>()
  for (const o of options) {
    const v = o.value?.value
    if (o.name === "-E" || o.name === "--eval") {
      if (v === undefined) a.unknown(`make ${o.name} runs code only known at run time`)
      else {
        a.script(v)
        makefileCommands(v, [], new Map(), a, `make ${o.name}`)
      }
    }
    if (o.name === "-C" || o.name === "--directory") {
      if (v === undefined) return void a.unknown("make -C names a directory only known at run time")
      dirs.push(v)
    }
    if (o.name === "-f" || o.name === "--file" || o.name === "--makefile") {
      if (v === undefined) return void a.unknown("make -f names a makefile only known at run time")
      files.push(v)
    }
  }
  if (dynamic) a.unknown("make is given words that are only known at run time")
  const targets: string[] = []
  for (const w of rest) {
    const v = w.value ?? ""
    const eq = /^[^=\s:]+=/.test(v) ? v.indexOf("=") : -1
    if (eq > 0) overrides.set(v.slice(0, eq), v.slice(eq + 1))
    else targets.push(v)
  }
  if (!a.dirs()) a.unknown("make runs in a directory only known at run time, whose makefile cannot be read")
  for (const cwd of a.dirs() ?? []) {
    const dir = dirs.reduce((d, c) => path.resolve(d, c), cwd)
    const makefiles = files.length > 0 ? files.map((f) => path.resolve(dir, f)) : [["GNUmakefile", "makefile", "Makefile"].map((n) => path.join(dir, n)).find((f) => fs.existsSync(f))]
    for (const file of makefiles) {
      if (file && /^\/dev\/(stdin|fd\/0)$|\/-$/.test(file)) {
        // `make -f -`: the makefile is the command's standard input.
        const stdin = io.stdin
        if (stdin?.kind === "text" && stdin.text !== undefined) makefileCommands(stdin.text, targets, overrides, a, "make -f -")
        else if (stdin?.kind !== "file" || (stdin.word && a.runsWritten(stdin.word))) a.unknown("make reads a makefile from its standard input, which is not analysed")
        continue
      }
      if (!file || !sessionWrote(a, file)) continue
      const text = readProjectFile(file, a, "make reads")
      if (text !== undefined) makefileCommands(text, targets, overrides, a, file)
    }
  }
}

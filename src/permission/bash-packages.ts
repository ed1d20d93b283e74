// Package and environment runners that run any command: `npx`, `npm exec`, `pnpm exec`,
// `uv run`, `poetry run`, `mise exec --`, … They are looked through like `sudo`; an
// option that takes shell code (`npx -c`, `pnpm exec -c`, `bun exec`) is analysed as such.
import { interpreter } from "./bash-interpreters"
import { packageScripts } from "./bash-scripts"
import type { Analyzer, Handler, Outcome } from "./bash-types"
import { type Word, scanOptions } from "./bash-words"

// Package and environment runners that run any command: `npx`, `npm exec`, `uv run`, …
interface RunSpec {
  shortValue?: string
  longValue?: string[]
  /** Options whose value is shell code. */
  code?: string[]
  /** Flags that make the operands one line of shell code (pnpm exec -c, bun exec). */
  shellMode?: string[] | "always"
  /** The command comes only after `--` (mise exec). */
  afterDashDash?: boolean
}

function runWith(spec: RunSpec, from: number, words: Word[], a: Analyzer): Outcome | void {
  const codeLetters = (spec.code ?? []).filter((c) => c.length === 2).map((c) => c[1]).join("")
  const scan = scanOptions(words, from, (spec.shortValue ?? "") + codeLetters, [...(spec.longValue ?? []), ...(spec.code ?? [])])
  const name = words[0].value
  const code = scan.options.find((o) => spec.code?.includes(o.name))
  if (code) return void (code.value?.value === undefined ? a.unknown(`${name} runs code only known at run time`) : a.script(code.value.value))
  const rest = words.slice(scan.index)
  if (spec.shellMode === "always" || scan.options.some((o) => Array.isArray(spec.shellMode) && spec.shellMode.includes(o.name))) {
    if (scan.dynamic || rest.some((w) => w.value === undefined)) a.unknown(`${name} runs code only known at run time`)
    else if (rest.length) a.script(rest.map((w) => w.value).join(" "))
    return
  }
  if (spec.afterDashDash) {
    const at = words.findIndex((w, i) => i >= from && w.value === "--")
    if (at < 0) return void a.unknown(`${name} runs a command its options hide`)
    return at + 1 < words.length ? { inner: at + 1 } : undefined
  }
  return scan.index < words.length ? { inner: scan.index } : undefined
}

/** `other` is told about any other subcommand (`npm test`, which runs a script), at its index. */
function packageRunner(globalValue: string[], subs: Record<string, RunSpec>, other?: (words: Word[], a: Analyzer, at: number) => void): Handler {
  return (words, a) => {
    const top = scanOptions(words, 1, "", globalValue)
    const sub = top.dynamic ? undefined : words[top.index]?.value
    if (top.dynamic) a.unknown(`${words[0].value} is given words that are only known at run time`)
    if (sub !== undefined && Object.hasOwn(subs, sub)) return runWith(subs[sub], top.index + 1, words, a)
    if (!top.dynamic) other?.(words, a, top.index)
  }
}


const NPX: RunSpec = { shortValue: "p", longValue: ["--package"], code: ["-c", "--call"] }
const RUN: RunSpec = {}
const CONDA: RunSpec = { shortValue: "np", longValue: ["--name", "--prefix", "--cwd"] }
const UV: RunSpec = {
  shortValue: "p",
  longValue: ["--with", "--python", "--project", "--directory", "--package", "--extra", "--group", "--index", "--env-file", "--with-requirements", "--with-editable", "--from"],
}

const bunRunner = packageRunner(["--cwd"], { x: RUN, exec: { shellMode: "always" } }, packageScripts("bun", ["--cwd"]))

export const PACKAGE_RUNNERS: Record<string, Handler> = {
  npx: (words, a) => runWith(NPX, 1, words, a),
  pnpx: (words, a) => runWith(NPX, 1, words, a),
  bunx: (words, a) => runWith(NPX, 1, words, a),
  uvx: (words, a) => runWith(UV, 1, words, a),
  npm: packageRunner(["--prefix", "-w", "--workspace"], { exec: NPX, x: NPX }, packageScripts("npm", ["--prefix"])),
  pnpm: packageRunner(
    ["-C", "--dir", "-F", "--filter"],
    { exec: { shellMode: ["-c", "--shell-mode"] }, dlx: { longValue: ["--package"], shellMode: ["-c", "--shell-mode"] } },
    packageScripts("pnpm", ["-C", "--dir"]),
  ),
  yarn: packageRunner(["--cwd"], { exec: RUN, dlx: { shortValue: "p", longValue: ["--package"] } }, packageScripts("yarn", ["--cwd"])),
  // bun is a package runner and a JavaScript runtime: `bun -e code`, `bun file.ts`.
  bun: (words, a, io) => {
    const outcome = bunRunner(words, a, io)
    const sub = words[1]?.value
    if (!outcome && words.length > 1 && !["x", "exec", "run", "install", "i", "add", "test", "build", "remove", "update", "pm", "create", "init", "link", "upgrade"].includes(sub ?? "")) interpreter(words, a, io)
    return outcome
  },
  uv: packageRunner(["--directory", "--project"], { run: UV }),
  poetry: packageRunner(["-C", "--directory"], { run: RUN }),
  pipenv: packageRunner([], { run: RUN }),
  pdm: packageRunner(["-p", "--project"], { run: RUN }),
  hatch: packageRunner([], { run: RUN }),
  rye: packageRunner([], { run: RUN }),
  conda: packageRunner([], { run: CONDA }),
  mamba: packageRunner([], { run: CONDA }),
  micromamba: packageRunner([], { run: CONDA }),
  mise: packageRunner(["-C", "--cd"], { exec: { afterDashDash: true }, x: { afterDashDash: true } }),
}

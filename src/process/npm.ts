// Installing npm packages into a folder of wright's cache (plugins, language servers): npm
// through the spawner, once; a later call finds the folder's `.installed` mark and runs no npm
// at all. Calls for the same folder in one process share one install. A failed install
// (offline, unknown package, npm missing) leaves nothing behind and rejects with an error
// that names what was being installed and why; with `remember`, the failure is kept beside the
// folder (`<root>.failed`) so that an offline machine does not run npm again on every edit or
// every run until it is old enough; an install cut short by its abort is not.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import type { Exec } from "./exec"

export interface NpmInstall {
  /** The folder npm installs into (`<root>/node_modules/…`). */
  root: string
  /** npm specs: `pkg`, `pkg@1.2`, `@scope/pkg@^1`. */
  packages: string[]
  /** What the messages call it: "plugin x@1", "the bash language server (bash-language-server)". */
  label: string
  /** The sentence after "npm did not start (…)": what the user can do instead. */
  hint: string
  exec: Exec
  /** Where npm runs from. */
  cwd: string
  /** npm's own timeout, milliseconds (default 5 minutes). */
  timeout?: number
  /** Aborting kills npm (the App shutting down). */
  abort?: AbortSignal
  /** npm's --ignore-scripts: no package's install script runs (language servers need none). */
  ignoreScripts?: boolean
  /** How long a failure is remembered (ms): until then a call rejects with it and runs no npm. Undefined: not remembered; nor is an abort. */
  remember?: number
}

const running = new Map<string, Promise<number | undefined>>()

/** Whether `root` holds a finished install. */
export function isInstalled(root: string): boolean {
  return existsSync(path.join(root, ".installed"))
}

/**
 * Installs the packages into `root` unless a finished install is there. Resolves with how long
 * npm took (ms), or undefined when nothing had to be installed. Rejects with a readable error.
 */
export function npmInstall(job: NpmInstall): Promise<number | undefined> {
  if (isInstalled(job.root)) return Promise.resolve(undefined)
  const failed = job.remember === undefined ? undefined : rememberedFailure(job.root, job.remember)
  if (failed) return Promise.reject(new Error(failed))
  const key = path.resolve(job.root)
  let p = running.get(key)
  if (!p) {
    p = install(job)
      .catch((e: Error) => {
        // Cut short by its abort (the App shutting down mid-install) is no failure to remember.
        if (job.remember !== undefined && !job.abort?.aborted) writeFileSync(failureFile(job.root), JSON.stringify({ time: new Date().toISOString(), error: e.message }))
        throw e
      })
      .finally(() => running.delete(key))
    running.set(key, p)
  }
  return p
}

async function install(job: NpmInstall): Promise<number> {
  mkdirSync(job.root, { recursive: true })
  const started = Date.now()
  const argv = ["npm", "install", "--prefix", job.root, "--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", ...(job.ignoreScripts ? ["--ignore-scripts"] : []), ...job.packages]
  let child
  try {
    child = await job.exec(argv, { cwd: job.cwd, timeout: job.timeout ?? 300_000, abort: job.abort, env: { npm_config_update_notifier: "false" } })
  } catch (e) {
    rmSync(job.root, { recursive: true, force: true })
    throw new Error(`Could not install ${job.label}: npm did not start (${(e as Error).message}). ${job.hint}`)
  }
  let stderr = ""
  child.stdout.resume()
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
  const exit = await child.done
  const missing = job.packages.find((spec) => !existsSync(path.join(job.root, "node_modules", ...specName(spec).split("/"), "package.json")))
  if (exit.code !== 0 || missing) {
    rmSync(job.root, { recursive: true, force: true })
    const why = exit.timedOut ? "npm timed out" : job.abort?.aborted ? "it was cancelled" : npmError(stderr) || `npm exited with ${exit.code ?? exit.signal}`
    const offline = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|network/i.test(stderr) ? " The registry could not be reached: are you offline?" : ""
    throw new Error(`Could not install ${job.label} with npm: ${why}.${offline}`)
  }
  writeFileSync(path.join(job.root, ".installed"), `${new Date().toISOString()}\n`)
  rmSync(failureFile(job.root), { force: true })
  return Date.now() - started
}

function failureFile(root: string): string {
  return `${path.resolve(root)}.failed`
}

/**
 * The remembered failure of installing into `root`, younger than `maxAge` ms, as the error to
 * show (saying when it happened and how to retry now); undefined when there is none.
 */
export function rememberedFailure(root: string, maxAge: number): string | undefined {
  const file = failureFile(root)
  try {
    const { time, error } = JSON.parse(readFileSync(file, "utf8")) as { time: string; error: string }
    const at = Date.parse(time)
    if (!(Date.now() - at < maxAge)) return undefined
    return `${error} (This failure is from ${time}; wright tries again ${Math.round(maxAge / 3_600_000)} h after it, or now if you delete ${file}.)`
  } catch {
    return undefined
  }
}

/** The package name of an npm spec (`@scope/pkg@^1` → `@scope/pkg`). */
export function specName(spec: string): string {
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0)
  return at === -1 ? spec : spec.slice(0, at)
}

/** What went wrong, from npm's stderr: its error code and first line that says something. */
function npmError(text: string): string {
  const lines = text.split("\n").map((l) => l.replace(/^npm (error|ERR!)\s*/, "").trim())
  const code = /^code (\S+)/m.exec(lines.join("\n"))?.[1]
  const said = lines.find((l) => l.length > 3 && !/^(code|errno|syscall|A complete log|\{|\}|at )/.test(l) && !/^\w+: '/.test(l))?.replace(/^\w*Error: /, "")
  return [code, said].filter(Boolean).join(": ")
}

// npm plugins: `"plugin": ["name@1.2.3"]` installs the package with npm, once, into its own
// folder under the cache directory (`<cache>/plugin/npm/<name>@<version>/`), through the
// spawner. A later start finds it there and runs no npm at all. A spec without a version is
// installed once as it was then ("latest" is not re-checked). A failed install (offline,
// unknown package) is an error naming the package.
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import path from "node:path"
import type { Exec } from "../process"

export interface NpmSpec {
  name: string
  version?: string
}

/** `pkg`, `pkg@1.2`, `@scope/pkg@^1`; undefined when it is not an npm name. */
export function parseSpec(spec: string): NpmSpec | undefined {
  const m = /^((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)(?:@(.+))?$/i.exec(spec.trim())
  if (!m) return undefined
  return { name: m[1]!, version: m[2] }
}

export interface InstallDeps {
  exec: Exec
  cacheDir: string
  /** Where npm runs from (its cwd); the project directory. */
  cwd: string
  /** Told what is being installed and when it is done; must not throw. */
  progress(line: string): void
  /** npm's own timeout, milliseconds. */
  timeout?: number
}

/** The installed package's folder, installing it first when it is not cached yet. */
export async function installed(spec: NpmSpec, deps: InstallDeps): Promise<string> {
  const label = spec.version ? `${spec.name}@${spec.version}` : spec.name
  const root = path.join(deps.cacheDir, "plugin", "npm", label.replace(/[\/\\]/g, "+"))
  const dir = path.join(root, "node_modules", ...spec.name.split("/"))
  if (existsSync(path.join(dir, "package.json")) && existsSync(path.join(root, ".installed"))) return dir

  mkdirSync(root, { recursive: true })
  deps.progress(`Installing plugin ${label} with npm…`)
  const started = Date.now()
  const argv = ["npm", "install", "--prefix", root, "--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", label]
  let child
  try {
    child = await deps.exec(argv, { cwd: deps.cwd, timeout: deps.timeout ?? 300_000, env: { npm_config_update_notifier: "false" } })
  } catch (e) {
    throw new Error(`Could not install plugin ${label}: npm did not start (${(e as Error).message}). Install Node.js's npm, or remove ${label} from "plugin".`)
  }
  let stderr = ""
  child.stdout.resume()
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
  const exit = await child.done
  if (exit.code !== 0 || !existsSync(path.join(dir, "package.json"))) {
    rmSync(root, { recursive: true, force: true })
    const why = exit.timedOut ? "npm timed out" : lastLines(stderr) || `npm exited with ${exit.code ?? exit.signal}`
    const offline = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|network/i.test(stderr) ? " The registry could not be reached: are you offline?" : ""
    throw new Error(`Could not install plugin ${label} with npm: ${why}.${offline}`)
  }
  const { writeFileSync } = await import("node:fs")
  writeFileSync(path.join(root, ".installed"), `${new Date().toISOString()}\n`)
  deps.progress(`Installed plugin ${spec.name}@${installedVersion(dir)} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return dir
}

export function installedVersion(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version?: string }).version
  } catch {
    return undefined
  }
}

/** What went wrong, from npm's stderr: its error code and first line that says something. */
function lastLines(text: string): string {
  const lines = text.split("\n").map((l) => l.replace(/^npm (error|ERR!)\s*/, "").trim())
  const code = /^code (\S+)/m.exec(lines.join("\n"))?.[1]
  const said = lines.find((l) => l.length > 3 && !/^(code|errno|syscall|A complete log|\{|\}|at )/.test(l) && !/^\w+: '/.test(l))?.replace(/^\w*Error: /, "")
  return [code, said].filter(Boolean).join(": ")
}

// npm plugins: `"plugin": ["name@1.2.3"]` installs the package with npm, once, into its own
// folder under the cache directory (`<cache>/plugin/npm/<name>@<version>/`), through the
// spawner. A later start finds it there and runs no npm at all. A spec without a version is
// installed once as it was then ("latest" is not re-checked). A failed install (offline,
// unknown package) is an error naming the package.
import { existsSync, readFileSync } from "node:fs"
import path from "node:path"
import { isInstalled, npmInstall, type Exec } from "../process"

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
  if (existsSync(path.join(dir, "package.json")) && isInstalled(root)) return dir
  deps.progress(`Installing plugin ${label} with npm…`)
  const ms = await npmInstall({
    root,
    packages: [label],
    label: `plugin ${label}`,
    hint: `Install Node.js's npm, or remove ${label} from "plugin".`,
    exec: deps.exec,
    cwd: deps.cwd,
    timeout: deps.timeout,
  })
  deps.progress(`Installed plugin ${spec.name}@${installedVersion(dir)} in ${((ms ?? 0) / 1000).toFixed(1)} s`)
  return dir
}

export function installedVersion(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version?: string }).version
  } catch {
    return undefined
  }
}

// Installing a language server found nowhere else, by the package manager its language uses:
// npm (process/npm.ts), `go install` of a pinned module, pip into a virtual environment of its
// own, or a rustup component. Each goes into a folder of wright's cache named after the pins
// (a new pin installs anew), once, through the spawner, as wright's own action: the cwd is the
// cache folder, never the project (a project's go.mod or pip config does not steer it), and
// pip takes wheels only (no package's setup.py runs). A failure is remembered like npm's.
// rustup is the exception: a component belongs to the user's toolchain, not to wright's cache.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import { isInstalled, npmInstall, rememberedFailure, specName, type Exec } from "../process"
import type { ServerDef } from "./servers"
import { findBinary } from "./servers"

export interface InstallPlan {
  /** How it is installed, for messages: "npm", "go install", "pip", "rustup". */
  via: string
  /** What is installed: the npm specs, the Go module, the pip requirements, the component. */
  what: string
  /** The folder it goes into (a marker and a remembered failure live beside it). */
  where: string
  /** The binary to run once installed. */
  binary: string
  /** Whether a finished install is there already. */
  done(): boolean
  /** Installs; resolves with how long it took (ms), rejects with a readable error. */
  run(o: { exec: Exec; abort: AbortSignal; remember: number }): Promise<number | undefined>
}

/** How `def` would be installed into `cacheDir`, or undefined when it names no installer that can run here. */
export function installPlan(def: ServerDef, cacheDir: string, pathEnv: string | undefined): InstallPlan | undefined {
  const name = def.command[0]!
  const onPath = (tool: string) => findBinary(tool, { root: cacheDir, top: cacheDir, pathEnv, local: false })
  if (def.npm) {
    const where = path.join(cacheDir, "lsp", "npm", [def.id, ...def.npm.map((spec) => spec.slice(specName(spec).length + 1) || "latest")].join("-"))
    const packages = def.npm
    return {
      via: "npm",
      what: packages.join(", "),
      where,
      binary: path.join(where, "node_modules", ".bin", name),
      done: () => isInstalled(where),
      run: ({ exec, abort, remember }) =>
        npmInstall({
          root: where,
          packages,
          label: `the ${def.id} language server (${packages.join(", ")})`,
          hint: `Install ${packages[0]} yourself, or set WRIGHT_DISABLE_LSP_DOWNLOAD=1.`,
          exec,
          cwd: where,
          ignoreScripts: true,
          abort,
          remember,
        }),
    }
  }
  if (def.go) {
    const go = onPath("go")
    if (!go) return undefined
    const where = path.join(cacheDir, "lsp", "go", folder(def.id, [def.go]))
    const env = { GOBIN: path.join(where, "bin"), GOPATH: path.join(where, "gopath"), GOFLAGS: "-modcacherw", GO111MODULE: "on", GOTOOLCHAIN: "local" }
    return plan("go install", def.go, where, path.join(where, "bin", name), [[go, "install", def.go]], env)
  }
  if (def.pip) {
    const python = onPath("python3")
    if (!python) return undefined
    const where = path.join(cacheDir, "lsp", "pip", folder(def.id, def.pip))
    const venv = path.join(where, "venv")
    const pip = path.join(venv, "bin", "pip")
    const steps = [[python, "-m", "venv", venv], [pip, "install", "--disable-pip-version-check", "--no-input", "--only-binary=:all:", ...def.pip]]
    return plan("pip", def.pip.join(", "), where, path.join(venv, "bin", name), steps, { PIP_CONFIG_FILE: "/dev/null" })
  }
  if (def.rustup) {
    const rustup = onPath("rustup")
    if (!rustup) return undefined
    const where = path.join(cacheDir, "lsp", "rustup", def.rustup)
    return plan("rustup", def.rustup, where, path.join(path.dirname(rustup), name), [[rustup, "component", "add", def.rustup]], {})
  }
  return undefined

  function plan(via: string, what: string, where: string, binary: string, steps: string[][], env: Record<string, string>): InstallPlan {
    return {
      via,
      what,
      where,
      binary,
      done: () => isInstalled(where) && existsSync(binary),
      async run({ exec, abort, remember }) {
        if (isInstalled(where) && existsSync(binary)) return undefined
        const failed = rememberedFailure(where, remember)
        if (failed) throw new Error(failed)
        const started = Date.now()
        mkdirSync(where, { recursive: true })
        try {
          for (const argv of steps) await step(exec, argv, where, env, abort)
          if (!existsSync(binary)) throw new Error(`${via} finished but ${binary} is not there`)
        } catch (e) {
          const error = `Could not install the ${def.id} language server (${what}) with ${via}: ${(e as Error).message}. Install ${name} yourself, or set WRIGHT_DISABLE_LSP_DOWNLOAD=1.`
          rmSync(where, { recursive: true, force: true })
          // An install cut short by shutdown is no failure to remember (process/npm.ts does the same).
          if (!abort.aborted) writeFileSync(`${path.resolve(where)}.failed`, JSON.stringify({ time: new Date().toISOString(), error }))
          throw new Error(error)
        }
        writeFileSync(path.join(where, ".installed"), `${new Date().toISOString()}\n`)
        rmSync(`${path.resolve(where)}.failed`, { force: true })
        return Date.now() - started
      },
    }
  }
}

async function step(exec: Exec, argv: string[], cwd: string, env: Record<string, string>, abort: AbortSignal) {
  const child = await exec(argv, { cwd, env, timeout: 600_000, abort })
  let err = ""
  child.stdout.resume()
  child.stderr.on("data", (b: Buffer) => (err = (err + b.toString()).slice(-4000)))
  const exit = await child.done
  if (exit.timedOut) throw new Error(`${path.basename(argv[0]!)} timed out`)
  if (exit.code !== 0) {
    const said = err.trim().split("\n").filter(Boolean).slice(-3).join(" ")
    throw new Error(`${path.basename(argv[0]!)} exited with ${exit.code ?? exit.signal}${said ? ` (${said})` : ""}`)
  }
}

/** The cache folder of a server's pins: its id and the versions, so that a new pin installs into a new folder. */
function folder(id: string, pins: string[]): string {
  const versions = pins.map((p) => /(?:@|==)([^@=]+)$/.exec(p)?.[1] ?? "latest")
  return `${id}-${versions.join("-")}`.replace(/[^\w.-]/g, "_")
}

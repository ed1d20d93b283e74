// The `$` a plugin gets: the commonly used part of Bun's shell API over the one spawner.
// `` $`git log ${ref}` `` runs through bash with every interpolation quoted as one word (an
// array as one word per item, `{ raw }` as written). Awaiting gives
// `{ stdout, stderr, exitCode, text(), json() }`; a non-zero exit rejects with a ShellError
// unless `.nothrow()`. Output is never echoed to wright's own terminal (`.quiet()` is the
// default and a no-op).
import type { Exec, Sandbox } from "../process"

export interface ShellOutput {
  stdout: Buffer
  stderr: Buffer
  exitCode: number
  text(encoding?: BufferEncoding): string
  json(): any
  lines(): string[]
}

export class ShellError extends Error implements ShellOutput {
  constructor(readonly output: ShellOutput, command: string) {
    super(`Failed with exit code ${output.exitCode}: ${command}${output.stderr.length ? `\n${output.stderr.toString().trim()}` : ""}`)
    this.name = "ShellError"
  }
  get stdout() { return this.output.stdout }
  get stderr() { return this.output.stderr }
  get exitCode() { return this.output.exitCode }
  text(encoding?: BufferEncoding) { return this.output.text(encoding) }
  json() { return this.output.json() }
  lines() { return this.output.lines() }
}

interface Settings {
  cwd: string
  env?: Record<string, string | undefined>
  throws: boolean
  sandbox?: Sandbox
}

export interface ShellPromise extends Promise<ShellOutput> {
  quiet(): ShellPromise
  nothrow(): ShellPromise
  throws(on: boolean): ShellPromise
  cwd(dir: string): ShellPromise
  env(vars: Record<string, string | undefined>): ShellPromise
  text(encoding?: BufferEncoding): Promise<string>
  json(): Promise<any>
  /** Bun yields the lines one by one; here they arrive once the command ended. */
  lines(): AsyncIterable<string>
  arrayBuffer(): Promise<ArrayBuffer>
}

export interface Shell {
  (strings: TemplateStringsArray, ...values: unknown[]): ShellPromise
  cwd(dir: string): Shell
  env(vars?: Record<string, string | undefined>): Shell
  nothrow(): Shell
  throws(on: boolean): Shell
  escape(value: string): string
}

/** `sandbox`: the App's; a plugin's commands run inside it when it is on (undefined: outside). */
export function createShell(exec: Exec, defaults: { cwd: string; env?: Record<string, string | undefined>; sandbox?: Sandbox }): Shell {
  return make(exec, { cwd: defaults.cwd, env: defaults.env, throws: true, sandbox: defaults.sandbox })
}

function make(exec: Exec, base: Settings): Shell {
  const $ = ((strings: TemplateStringsArray, ...values: unknown[]) => shellPromise(exec, compose(strings, values), { ...base })) as Shell
  $.cwd = (dir) => make(exec, { ...base, cwd: dir })
  $.env = (vars) => make(exec, { ...base, env: vars })
  $.nothrow = () => make(exec, { ...base, throws: false })
  $.throws = (on) => make(exec, { ...base, throws: on })
  $.escape = quote
  return $
}

/** Joins the template with each value quoted as the shell word(s) it stands for. */
export function compose(strings: TemplateStringsArray | readonly string[], values: unknown[]): string {
  let out = strings[0] ?? ""
  for (let i = 0; i < values.length; i++) out += word(values[i]) + (strings[i + 1] ?? "")
  return out
}

function word(value: unknown): string {
  if (Array.isArray(value)) return value.map(word).join(" ")
  if (value && typeof value === "object" && "raw" in value && typeof (value as { raw: unknown }).raw === "string") return (value as { raw: string }).raw
  if (value && typeof value === "object" && "exitCode" in value && "stdout" in value) return quote(String((value as ShellOutput).stdout).trimEnd())
  return quote(value === undefined || value === null ? "" : String(value))
}

export function quote(s: string): string {
  if (s !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s
  return `'${s.replace(/'/g, `'\\''`)}'`
}

function shellPromise(exec: Exec, command: string, settings: Settings): ShellPromise {
  let started: Promise<ShellOutput> | undefined
  const start = () => (started ??= run(exec, command, settings))
  const self: ShellPromise = {
    then: (ok, fail) => start().then(ok, fail),
    catch: (fail) => start().catch(fail),
    finally: (fn) => start().finally(fn),
    [Symbol.toStringTag]: "ShellPromise",
    quiet: () => self,
    nothrow: () => ((settings.throws = false), self),
    throws: (on) => ((settings.throws = on), self),
    cwd: (dir) => ((settings.cwd = dir), self),
    env: (vars) => ((settings.env = vars), self),
    text: (encoding) => start().then((o) => o.text(encoding)),
    json: () => start().then((o) => o.json()),
    lines: () => ({
      async *[Symbol.asyncIterator]() {
        for (const line of (await start()).lines()) yield line
      },
    }),
    arrayBuffer: () => start().then((o) => new Uint8Array(o.stdout).buffer),
  } as ShellPromise
  return self
}

async function run(exec: Exec, command: string, settings: Settings): Promise<ShellOutput> {
  const child = await exec(["bash", "-c", command], { cwd: settings.cwd, env: settings.env, sandbox: settings.sandbox })
  const out: Buffer[] = []
  const err: Buffer[] = []
  child.stdout.on("data", (d: Buffer) => out.push(d))
  child.stderr.on("data", (d: Buffer) => err.push(d))
  const exit = await child.done
  const output = toOutput(Buffer.concat(out), Buffer.concat(err), exit.code ?? (exit.signal ? 128 + 15 : 1))
  if (settings.throws && output.exitCode !== 0) throw new ShellError(output, command)
  return output
}

function toOutput(stdout: Buffer, stderr: Buffer, exitCode: number): ShellOutput {
  return {
    stdout,
    stderr,
    exitCode,
    text: (encoding) => stdout.toString(encoding ?? "utf8"),
    json: () => JSON.parse(stdout.toString("utf8")),
    lines: () => stdout.toString("utf8").split("\n").filter((l, i, all) => l !== "" || i < all.length - 1),
  }
}

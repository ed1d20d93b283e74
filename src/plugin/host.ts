// The plugins of one App: loads each source in order, calls each plugin function of a module
// with OpenCode's input, keeps the hooks they return, and runs a hook by name across all of
// them (in load order, each mutating the shared `output`, as OpenCode does). A plugin that
// throws while loading is reported with its name and left out. Hooks fail two ways:
// a guard (`tool.execute.before`) that throws or runs past the timeout blocks that one call,
// with its reason, and keeps guarding the next (fail closed: throwing is OpenCode's way to
// block); any other hook that throws or hangs is reported and that hook alone is turned off
// for the rest of the App's life, so a failing `event` hook never takes a plugin's guards
// with it.
import type { Tool } from "../tool"
import { customTool, isToolDefinition, toolsOfModule } from "./custom-tool"
import { importFile, importPackage } from "./load"
import { installed, installedVersion, parseSpec } from "./npm"
import type { PluginSource, Sources, ToolSource } from "./sources"
import type { Exec } from "../process"
import { existsSync, statSync } from "node:fs"

export type HookFn = (input: any, output: any) => Promise<void> | void
export type Hooks = Record<string, unknown>

/** What `wright plugin list` and GET /plugin show of one source. */
export interface PluginStatus {
  name: string
  kind: "file" | "npm" | "url" | "tool" | "hooks"
  /** The file, folder or npm spec it came from. */
  source: string
  version?: string
  status: "loaded" | "failed" | "disabled"
  hooks: string[]
  tools: string[]
  error?: string
  /** Milliseconds it took to load (install not included). */
  loadMs?: number
}

export interface HostDeps {
  sources: Sources
  /** The input every plugin function gets (client, project, directory, worktree, $, …). */
  input: Record<string, unknown>
  exec: Exec
  cacheDir: string
  directory: string
  /** How long one hook call (or one plugin function at load) may take, milliseconds. */
  timeout: number
  /** Told each failure once, with the plugin's name; must not throw. */
  report(message: string): void
  progress(line: string): void
}

interface Entry {
  status: PluginStatus
  hooks: Hooks[]
  /** Hooks turned off after they failed (never a guard). */
  off: Set<string>
}

export interface Host {
  list(): PluginStatus[]
  tools(): Tool[]
  /** Runs every enabled plugin's `name` hook in order; resolves with `output` (mutated). Never throws. */
  trigger<O>(name: string, input: unknown, output: O): Promise<O>
  /**
   * Runs a guard hook (`tool.execute.before`) like `trigger`, but the first plugin whose hook
   * throws or runs past the timeout ends it with `block`, the reason the model reads; that
   * plugin stays enabled. Never throws.
   */
  guard<O>(name: string, input: unknown, output: O): Promise<{ output: O; block?: string }>
  /** Whether any enabled plugin has this hook (callers skip building inputs otherwise). */
  has(name: string): boolean
  /** The enabled plugins' values of a hook that is not a function (`auth`, `provider`), with each plugin's name. */
  values(name: string): { plugin: string; value: unknown }[]
  dispose(): Promise<void>
}

export async function loadPlugins(deps: HostDeps): Promise<Host> {
  const entries: Entry[] = []
  const tools = new Map<string, Tool>()

  for (const source of deps.sources.plugins) {
    const entry: Entry = { status: { name: source.name, kind: source.kind, source: source.target, status: "loaded", hooks: [], tools: [] }, hooks: [], off: new Set() }
    entries.push(entry)
    try {
      let started = Date.now()
      const { mod, version, installMs } = await moduleOf(source, deps)
      started += installMs ?? 0
      if (version) entry.status.version = version
      for (const fn of pluginFunctions(mod)) {
        const hooks = await withTimeout(Promise.resolve(fn(deps.input, source.options ?? {})), deps.timeout, `loading took longer than ${deps.timeout} ms`)
        if (!hooks || typeof hooks !== "object") continue
        entry.hooks.push(hooks as Hooks)
        for (const key of Object.keys(hooks)) if (key !== "tool" && !entry.status.hooks.includes(key)) entry.status.hooks.push(key)
        for (const [id, def] of Object.entries(((hooks as Hooks).tool as Record<string, unknown>) ?? {})) {
          if (!isToolDefinition(def)) continue
          tools.set(id, customTool(id, def))
          entry.status.tools.push(id)
        }
      }
      entry.status.loadMs = Date.now() - started
    } catch (e) {
      fail(entry, `failed to load: ${messageOf(e)}`)
    }
  }
  for (const source of deps.sources.tools) entries.push(await loadToolFile(source, deps, tools))

  function fail(entry: Entry, message: string) {
    entry.status.status = entry.status.status === "loaded" && entry.hooks.length > 0 ? "disabled" : "failed"
    entry.status.error = message
    for (const id of entry.status.tools) tools.delete(id)
    deps.report(`Plugin ${entry.status.name} ${message}${entry.status.status === "disabled" ? "; it is disabled for this session" : ""}`)
  }

  /** A hook that failed is turned off for this plugin; the plugin's other hooks, its guards above all, keep running. */
  function turnOff(entry: Entry, name: string, message: string) {
    entry.off.add(name)
    entry.status.error = message
    const left = entry.status.hooks.filter((h) => !entry.off.has(h) && entry.hooks.some((hooks) => typeof hooks[h] === "function"))
    if (left.length === 0 && entry.status.tools.length === 0) entry.status.status = "disabled"
    deps.report(`Plugin ${entry.status.name} ${message}; that hook is off for this session${left.length ? ", its other hooks keep running" : ""}`)
  }

  const enabled = () => entries.filter((e) => e.status.status === "loaded")
  /** The enabled plugins' functions for a hook, in load order. */
  const hookFns = (name: string) =>
    enabled()
      .filter((e) => !e.off.has(name))
      .flatMap((entry) => entry.hooks.filter((h) => typeof h[name] === "function").map((hooks) => ({ entry, hooks, fn: hooks[name] as HookFn })))
  const run = (hooks: Hooks, fn: HookFn, input: unknown, output: unknown) =>
    withTimeout(Promise.resolve(fn.call(hooks, input, output)), deps.timeout, `did not finish within ${deps.timeout} ms`, TIMED_OUT)
  return {
    list: () => entries.map((e) => ({ ...e.status, hooks: [...e.status.hooks], tools: [...e.status.tools] })),
    tools: () => [...tools.values()],
    has: (name) => hookFns(name).length > 0,
    values: (name) => enabled().flatMap((e) => e.hooks.filter((h) => h[name] && typeof h[name] === "object").map((h) => ({ plugin: e.status.name, value: h[name] }))),
    async trigger(name, input, output) {
      for (const { entry, hooks, fn } of hookFns(name)) {
        if (entry.off.has(name)) continue
        try {
          await run(hooks, fn, input, output)
        } catch (e) {
          turnOff(entry, name, `failed in its ${name} hook: ${messageOf(e)}`)
        }
      }
      return output
    },
    async guard(name, input, output) {
      for (const { entry, hooks, fn } of hookFns(name)) {
        try {
          await run(hooks, fn, input, output)
        } catch (e) {
          const plugin = entry.status.name
          if ((e as Error)?.cause === TIMED_OUT) {
            const block = `Plugin ${plugin}'s ${name} hook did not finish within ${deps.timeout} ms, so this call was blocked.`
            deps.report(block)
            return { output, block }
          }
          return { output, block: `Plugin ${plugin} blocked this call: ${messageOf(e) || "(it gave no reason)"}` }
        }
      }
      return { output }
    },
    async dispose() {
      for (const entry of enabled()) {
        for (const hooks of entry.hooks) {
          if (typeof hooks.dispose !== "function") continue
          await withTimeout(Promise.resolve((hooks.dispose as () => unknown)()), deps.timeout, "dispose timed out").catch(() => {})
        }
      }
    },
  }
}

/** The module of a source; `installMs` is the time an npm install took (not counted as loading). */
async function moduleOf(source: PluginSource, deps: HostDeps): Promise<{ mod: Record<string, unknown>; version?: string; installMs?: number }> {
  if (source.kind === "npm") {
    const spec = parseSpec(source.target)
    if (!spec) throw new Error(`${JSON.stringify(source.target)} is not an npm package name (use name@version, or a file:// URL)`)
    const before = Date.now()
    const dir = await installed(spec, { exec: deps.exec, cacheDir: deps.cacheDir, cwd: deps.directory, progress: deps.progress })
    const installMs = Date.now() - before
    return { mod: await importPackage(dir, deps.cacheDir), version: installedVersion(dir), installMs }
  }
  if (source.kind === "url") {
    if (!existsSync(source.target)) throw new Error(`${source.target} does not exist`)
    if (statSync(source.target).isDirectory()) return { mod: await importPackage(source.target, deps.cacheDir), version: installedVersion(source.target) }
  }
  return { mod: await importFile(source.target, deps.cacheDir) }
}

/** OpenCode's module format: every exported function is a plugin; `{ server }` (v1 module) too. */
export function pluginFunctions(mod: Record<string, unknown>): ((input: unknown, options: unknown) => unknown)[] {
  const out: ((input: unknown, options: unknown) => unknown)[] = []
  const add = (fn: unknown) => {
    if (typeof fn === "function" && !out.includes(fn as never)) out.push(fn as never)
  }
  for (const value of Object.values(mod)) {
    if (typeof value === "function") add(value)
    else if (value && typeof value === "object" && typeof (value as { server?: unknown }).server === "function") add((value as { server: unknown }).server)
  }
  return out
}

async function loadToolFile(source: ToolSource, deps: HostDeps, tools: Map<string, Tool>): Promise<Entry> {
  const entry: Entry = { status: { name: source.name, kind: "tool", source: source.file, status: "loaded", hooks: [], tools: [] }, hooks: [], off: new Set() }
  const started = Date.now()
  try {
    const mod = await importFile(source.file, deps.cacheDir)
    const found = toolsOfModule(source.name, mod)
    if (found.length === 0) throw new Error("it exports no tool({ description, args, execute })")
    for (const [id, def] of found) {
      tools.set(id, customTool(id, def))
      entry.status.tools.push(id)
    }
    entry.status.loadMs = Date.now() - started
  } catch (e) {
    entry.status.status = "failed"
    entry.status.error = `failed to load: ${messageOf(e)}`
    deps.report(`Custom tool ${source.file} ${entry.status.error}`)
  }
  return entry
}

/** The `cause` of the error `withTimeout` rejects with, so a timeout is told from a hook's own throw. */
const TIMED_OUT = Symbol("timed out")

export function withTimeout<T>(p: Promise<T>, ms: number, message: string, cause?: unknown): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<never>((_, reject) => {
    // Not unref'd: a hook that hangs on nothing must not let the process exit under it.
    timer = setTimeout(() => reject(new Error(message, cause === undefined ? undefined : { cause })), ms)
  })
  return Promise.race([p, limit]).finally(() => clearTimeout(timer))
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

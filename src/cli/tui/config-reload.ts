// The TUI's core follows its config files: on a change it checks the new config first (a bad
// edit is reported naming the file, and the running config stays), waits for running steps
// to end, then drops the project's App (POST /instance/dispose) so the next request builds it
// with the new config. The UI hears `server.instance.disposed` and reloads what it shows.
import os from "node:os"
import path from "node:path"
import { loadConfig } from "../../config"
import type { BusEvent } from "../../protocol"
import type { Client } from "../../sdk"
import { watchConfig } from "./config-watch"

export interface ConfigReloadOptions {
  client: Client
  directory: string
  env: NodeJS.ProcessEnv
  home?: string
  /** Sends an event to the UI. */
  emit(event: BusEvent): void
  /** How often a reload waiting for running steps looks again; default 500 ms. */
  pollMs?: number
  debounceMs?: number
}

export function reloadOnConfigChange(opts: ConfigReloadOptions): () => void {
  const home = opts.home ?? os.homedir()
  const toast = (message: string, variant: "info" | "success" | "error") => opts.emit({ type: "tui.toast.show", properties: { message, variant } })
  const shown = (file: string) => {
    const rel = path.relative(opts.directory, file)
    if (!rel.startsWith("..") && !path.isAbsolute(rel)) return rel
    return file.startsWith(home + path.sep) ? `~/${path.relative(home, file)}` : file
  }
  let stopped = false
  let running: Promise<void> | undefined
  let queued: string[] = []

  async function reload(files: string[]) {
    try {
      await loadConfig({ directory: opts.directory, env: opts.env, home })
    } catch (e) {
      return toast(`${(e as Error).message}\nThe previous config stays in use.`, "error")
    }
    for (let told = false; !stopped; ) {
      const statuses = await opts.client.session.status().catch(() => ({}))
      if (!Object.values(statuses).some((s) => s.type !== "idle")) break
      if (!told) toast("The config changed: it applies once the running step ends", "info")
      told = true
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 500))
    }
    if (stopped) return
    await opts.client.instance.dispose()
    // Builds the new App now, so its errors (if any) are told here and not on the next prompt.
    await opts.client.config.get().then(
      () => toast(`Config reloaded: ${files.map(shown).join(", ")}`, "success"),
      (e: Error) => toast(`${e.message}\nThe config could not be applied.`, "error"),
    )
  }

  const next = () => {
    if (running || !queued.length || stopped) return
    const files = queued
    queued = []
    running = reload(files)
      .catch((e: Error) => toast(`Reloading the config failed: ${e.message}`, "error"))
      .finally(() => {
        running = undefined
        next()
      })
  }
  const stop = watchConfig({
    directory: opts.directory,
    env: opts.env,
    home,
    debounceMs: opts.debounceMs,
    onChange(files) {
      queued = [...new Set([...queued, ...files])]
      next()
    },
  })
  return () => {
    stopped = true
    stop()
  }
}

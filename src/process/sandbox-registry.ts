// Which sandboxed commands run now: the bwrap pids of this process (in memory) and of every
// wright process of this user (one empty file per pid in wright's state folder,
// `~/.local/state/wright/sandboxes/<pid>`), so `wright serve` also knows the sandboxes of a
// `wright run` or TUI started beside it. The folder lies in wright's own state folder, which a
// sandboxed command can never write (sandbox-protect.ts), so a command cannot remove its own
// entry. A file left by a process that died is dropped when its pid is no longer a bwrap.
import { mkdirSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { xdgBase } from "./sandbox-protect"

/** bwrap pids of the sandboxed commands running now, in this process. */
export const liveSandboxes = new Set<number>()
/** The registry folders this process knows: its own environment's, and each App's. */
const folders = new Set<string>()

export function registryFolder(env: NodeJS.ProcessEnv): string {
  return path.join(xdgBase(env, env.HOME || os.homedir(), "XDG_STATE_HOME", ".local/state"), "wright", "sandboxes")
}

/** For one spawner: records a started bwrap's pid; the returned function forgets it. Never throws. */
export function registerSandbox(env: NodeJS.ProcessEnv): (pid: number) => () => void {
  const folder = registryFolder(env)
  folders.add(folder)
  let made = false
  return (pid) => {
    liveSandboxes.add(pid)
    const file = path.join(folder, String(pid))
    try {
      if (!made) mkdirSync(folder, { recursive: true, mode: 0o700 })
      made = true
      writeFileSync(file, "")
    } catch {
      // Not writable: this process's own listeners still know it.
    }
    return () => {
      liveSandboxes.delete(pid)
      rmSync(file, { force: true })
    }
  }
}

/**
 * The bwrap pids running now, here and in the other wright processes of this user: those in
 * the folders of this process's spawners, and (`ownEnv`) in the one this process's own
 * environment names, for a listener that runs before any App.
 */
export function liveSandboxPids(ownEnv = false): Set<number> {
  const pids = new Set(liveSandboxes)
  for (const folder of ownEnv ? new Set([...folders, registryFolder(process.env)]) : folders) {
    let names: string[]
    try {
      names = readdirSync(folder)
    } catch {
      continue
    }
    for (const name of names) {
      const pid = Number(name)
      if (!Number.isInteger(pid) || pids.has(pid)) continue
      if (isBwrap(pid)) pids.add(pid)
      else rmSync(path.join(folder, name), { force: true })
    }
  }
  return pids
}

/** A pid is reused after its process dies: only a live bwrap counts. */
function isBwrap(pid: number): boolean {
  try {
    return path.basename(readlinkSync(`/proc/${pid}/exe`)) === "bwrap"
  } catch {
    return false
  }
}

/** Whether a sandbox of another wright process runs now. */
export function othersLive(): boolean {
  for (const pid of liveSandboxPids()) if (!liveSandboxes.has(pid)) return true
  return false
}

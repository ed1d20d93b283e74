// Whether bubblewrap works here: found on the App's PATH, and able to build the namespaces a
// sandboxed command gets (it fails where unprivileged user namespaces are blocked, as on some
// Ubuntu setups). The answer is cached per process for each bwrap path and network setting.
import { execFile } from "node:child_process"
import { accessSync, constants } from "node:fs"
import path from "node:path"

export type Probe = { ok: true; path: string } | { ok: false; reason: string; missing: boolean }

const PROBE_TIMEOUT_MS = 5000
const cache = new Map<string, Promise<Probe>>()

export function probeBwrap(env: NodeJS.ProcessEnv, network: boolean): Promise<Probe> {
  const bwrap = findOnPath("bwrap", env.PATH ?? "")
  if (!bwrap) return Promise.resolve({ ok: false, reason: "bwrap (bubblewrap) is not on PATH", missing: true })
  const key = `${bwrap}\0${network}`
  let probe = cache.get(key)
  if (!probe) {
    probe = run(bwrap, network, env)
    cache.set(key, probe)
  }
  return probe
}

/** Starts the usual probe (network on) early, so resolving the sandbox later finds it done. */
export function warmSandbox(env: NodeJS.ProcessEnv): void {
  void probeBwrap(env, true)
}

function run(bwrap: string, network: boolean, env: NodeJS.ProcessEnv): Promise<Probe> {
  // The same namespaces and mounts a real command gets, around `true`.
  const args = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL", ...(network ? [] : ["--unshare-net"]), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true"]
  return new Promise((resolve) => {
    execFile(bwrap, args, { env, timeout: PROBE_TIMEOUT_MS, encoding: "utf8" }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true, path: bwrap })
      const said = stderr.trim().split("\n").filter(Boolean).pop() ?? error.message
      resolve({ ok: false, reason: `${bwrap} does not work here (${said})`, missing: false })
    })
  })
}

function findOnPath(name: string, PATH: string): string | undefined {
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue
    const file = path.join(dir, name)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // next
    }
  }
  return undefined
}

// How `wright web pair|devices|revoke` find a running web server: each one writes
// `<state>/web/<port>.json` (folder 0700, file 0600, created anew so no older file's mode
// survives) with its URL, pid and pairing admin token, and removes it on exit. Only this user
// can read the token, so another local user cannot mint pairing links: reaching the port is
// not enough, the /web/ routes want the token (or the password).
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs"
import path from "node:path"
import { xdg } from "../../util"

export interface WebState {
  url: string
  port: number
  pid: number
  adminToken: string
}

export const webStateDir = (env: NodeJS.ProcessEnv) => path.join(xdg(env).state, "web")

/** Writes this server's state file; returns its remover. */
export function writeWebState(env: NodeJS.ProcessEnv, state: WebState): () => void {
  const dir = webStateDir(env)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = path.join(dir, `${state.port}.json`)
  rmSync(file, { force: true })
  // "wx": never through a link or into a file someone else made.
  const fd = openSync(file, "wx", 0o600)
  try {
    writeSync(fd, JSON.stringify(state))
  } finally {
    closeSync(fd)
  }
  return () => {
    try {
      const now = JSON.parse(readFileSync(file, "utf8")) as WebState
      if (now.pid === state.pid) rmSync(file, { force: true })
    } catch {
      // gone already
    }
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Running web servers of this user (stale files of dead ones are skipped). */
export function runningWebServers(env: NodeJS.ProcessEnv): WebState[] {
  const dir = webStateDir(env)
  if (!existsSync(dir)) return []
  const found: WebState[] = []
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name)
    try {
      const st = lstatSync(file)
      // Only a regular file of ours that nobody else can read counts.
      if (!st.isFile() || st.uid !== process.getuid?.() || (st.mode & 0o077) !== 0) continue
      const state = JSON.parse(readFileSync(file, "utf8")) as WebState
      if (alive(state.pid)) found.push(state)
    } catch {
      // unreadable or half written: not a server
    }
  }
  return found
}

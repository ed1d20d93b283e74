// Tells a failure the sandbox caused from any other, from the command's output: a write to a
// read-only mount (EROFS, or EBUSY when a tool renames over a protected file such as
// .git/config), a path that exists but is not mounted when reads are restricted, and name
// resolution or connections failing when the network is unshared. "Permission denied" is not
// the sandbox's: its read-only mounts answer EROFS for any uid, so EACCES is the file's own
// mode, and running the command outside would fail the same way. The bash tool turns the
// answer into a note for the model and, if the user agrees, a re-run outside.
import { existsSync } from "node:fs"
import path from "node:path"
import type { SandboxPolicy } from "./sandbox-policy"

export interface SandboxBlock {
  kind: "write" | "read" | "network"
  /** The path it was about, when the output names one. */
  path?: string
  /** One sentence for the model: what the sandbox blocked and what it can do instead. */
  note: string
}

const WRITE = /Read-only file system|EROFS|Device or resource busy|EBUSY/
const MISSING = /No such file or directory|ENOENT|cannot access|can't open/
const NETWORK =
  /Temporary failure in name resolution|Could not resolve host|Name or service not known|Network is unreachable|EAI_AGAIN|ENETUNREACH|ENOTFOUND|getaddrinfo|Connection refused|ECONNREFUSED|No address associated with hostname|Could not resolve hostname/
const SOCKET = /Connection refused|ECONNREFUSED|Cannot connect|connect to/
const PATH = /(?:^|[\s'"`‘(:=])(\/[^\s'"`’):,]*)/g

/** The sandbox's part in a failed command's output, or undefined when the output shows none. */
export function explainBlock(policy: SandboxPolicy, output: string): SandboxBlock | undefined {
  const lines = output.split("\n")
  for (const line of lines) {
    if (WRITE.test(line)) {
      const p = subjects(line, WRITE).find((x) => !writable(policy, x))
      return { kind: "write", path: p, note: writeNote(policy, p) }
    }
    if (policy.readable !== "all" && MISSING.test(line)) {
      const p = subjects(line, MISSING).find((x) => hidden(policy, x))
      if (p)
        return {
          kind: "read",
          path: p,
          note: `wright's sandbox does not show ${p}: with external_directory denied, only the system directories, the project and $TMPDIR are visible to commands.`,
        }
    }
    if (policy.readable === "all" && (MISSING.test(line) || SOCKET.test(line))) {
      const p = [...subjects(line, MISSING.test(line) ? MISSING : SOCKET), ...[...line.matchAll(/unix:\/\/(\/\S+)/g)].map((m) => m[1]!.replace(/[.;,]+$/, ""))].find((x) => masked(policy, x))
      if (p)
        return {
          kind: "read",
          path: p,
          note: `wright's sandbox hides ${p}: /tmp, /run, $XDG_RUNTIME_DIR and agent sockets outside the project are empty inside it, so unix sockets there (docker, ssh-agent, D-Bus, tmux) cannot be reached. Use $TMPDIR for temporary files.`,
        }
    }
    if (!policy.network && NETWORK.test(line))
      return { kind: "network", note: `wright's sandbox has no network (sandbox.network is false): the command cannot resolve names or connect anywhere, not even to localhost outside it.` }
  }
  return undefined
}

function writeNote(policy: SandboxPolicy, p: string | undefined): string {
  const where =
    policy.mode === "read-only"
      ? "only $TMPDIR is writable (sandbox.mode is read-only)"
      : "only the project, $TMPDIR and sandbox.writable are writable, and what runs later stays read-only there (git's config, hooks and pointers, .wright, .opencode, wright's own folders, dotfiles in a writable home)"
  return `wright's sandbox blocked a write${p ? ` to ${p}` : ""}: ${where}.`
}

/** The paths an error line is about: those before the error text, nearest first ("bash: /x/y: Read-only…" → /x/y, then /bin/bash). */
function subjects(line: string, error: RegExp): string[] {
  const at = error.exec(line)?.index ?? line.length
  const before = [...line.slice(0, at).matchAll(PATH)].map((m) => m[1]!).reverse()
  const after = [...line.slice(at).matchAll(PATH)].map((m) => m[1]!)
  return [...before, ...after].map((p) => p.replace(/[.;]+$/, "")).filter((p) => p.length > 1)
}

function writable(policy: SandboxPolicy, p: string): boolean {
  if (inside(p, policy.protected)) return false
  // A dot entry of $HOME (or inside one) is read-only even when home is writable.
  if (policy.home && inside(policy.home, policy.writable) && p.startsWith(`${policy.home}/.`)) return false
  return inside(p, [...policy.writable, policy.tmpdir])
}

/** A path hidden under one of the emptied socket folders, or a masked socket, that exists outside. */
function masked(policy: SandboxPolicy, p: string): boolean {
  if (policy.sockets.includes(p)) return true
  if (!inside(p, policy.hidden) || inside(p, [...policy.reexposed, ...policy.writable, policy.tmpdir])) return false
  return existsSync(p)
}

/** The path, or the nearest of its parents that exists here, is one the sandbox does not mount. */
function hidden(policy: SandboxPolicy, p: string): boolean {
  for (let at = p; at !== path.dirname(at); at = path.dirname(at)) {
    if (!existsSync(at)) continue
    // /tmp is there inside (empty): a missing /tmp/x is missing either way.
    return !readable(policy, at) && !(at === "/tmp" && at !== p)
  }
  return false
}

function readable(policy: SandboxPolicy, p: string): boolean {
  if (policy.readable === "all") return true
  return inside(p, [...policy.readable, ...policy.writable, policy.tmpdir, "/usr", "/bin", "/lib", "/etc", "/opt", "/dev", "/proc"])
}

function inside(p: string, roots: string[]): boolean {
  return roots.some((root) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`))
}

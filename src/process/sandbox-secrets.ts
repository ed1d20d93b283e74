// What a sandboxed command may not read or reach although the filesystem is readable:
// wright's and OpenCode's credential files (an empty /dev/null is bound over each) and unix
// sockets outside the sandbox. connect() works through a read-only bind, so socket folders
// are hidden under an empty tmpfs instead: /tmp (tmux, ssh-agent, X11), /run and /var/run
// (D-Bus, docker.sock, databases), $XDG_RUNTIME_DIR, a $TMPDIR elsewhere; the readable
// folders inside them (the project, the tool-output folder, DNS configuration) are mounted
// back read-only afterwards, and $SSH_AUTH_SOCK and a `unix://` DOCKER_HOST get /dev/null
// bound over them wherever they are.
// Limit: abstract unix sockets (a name, no path: some D-Bus and X11 setups) belong to the
// network namespace, not the filesystem; they are out of reach only with sandbox.network
// false (--unshare-net).
import { existsSync, lstatSync, realpathSync } from "node:fs"
import path from "node:path"
import { under, xdgBase } from "./sandbox-protect"
import type { SandboxPolicy } from "./sandbox-policy"

export interface SecretsInput {
  env: NodeJS.ProcessEnv
  home: string
  /** Folders a command must still read: the worktree, the opened directory, extra readable folders. */
  readable: string[]
}

/** Resolved once per App. */
export function secretPaths(input: SecretsInput): Pick<SandboxPolicy, "masked" | "hidden" | "reexposed" | "sockets"> {
  const data = xdgBase(input.env, input.home, "XDG_DATA_HOME", ".local/share")
  const masked = [
    ...["auth.json", "mcp-auth.json", "trust.json"].map((f) => path.join(data, "wright", f)),
    ...["auth.json", "mcp-auth.json"].map((f) => path.join(data, "opencode", f)),
  ]
  const candidates = ["/tmp", "/run", "/var/run", input.env.XDG_RUNTIME_DIR, input.env.TMPDIR].filter((d): d is string => !!d && path.isAbsolute(d))
  // Real folders only (/var/run is usually a link into /run), and none inside another.
  const dirs = candidates.filter((d) => isDir(d)).map((d) => path.resolve(d))
  const hidden = [...new Set(dirs)].filter((d, i, all) => !all.some((o, j) => j !== i && o !== d && under(d, [o])))
  const dns: string[] = []
  try {
    const resolv = realpathSync("/etc/resolv.conf")
    if (under(resolv, hidden)) dns.push(path.dirname(resolv))
  } catch {
    // No resolv.conf: nothing to keep.
  }
  if (isDir("/run/systemd/resolve")) dns.push("/run/systemd/resolve")
  const reexposed = [...new Set([...input.readable, input.home, ...dns])].filter((d) => under(d, hidden))
  const docker = /^unix:\/\/(\/.+)$/.exec(input.env.DOCKER_HOST ?? "")?.[1]
  const sockets = [input.env.SSH_AUTH_SOCK, docker].filter((s): s is string => !!s && path.isAbsolute(s))
  return { masked, hidden, reexposed, sockets }
}

/** After `--ro-bind / /`: the socket folders emptied, the readable folders in them back. */
export function hideArgs(policy: SandboxPolicy): string[] {
  const args: string[] = []
  for (const dir of policy.hidden) args.push("--tmpfs", dir)
  for (const dir of policy.reexposed) args.push("--ro-bind-try", dir, dir)
  return args
}

/** Last of all: /dev/null over each credential file and stray socket the command can see. */
export function maskArgs(policy: SandboxPolicy): string[] {
  const args: string[] = []
  const visible = (p: string) =>
    policy.readable === "all"
      ? !under(p, policy.hidden) || under(p, [...policy.reexposed, ...policy.writable])
      : under(p, [...policy.readable, ...policy.writable])
  for (const p of [...policy.masked, ...policy.sockets]) if (existsSync(p) && visible(p)) args.push("--ro-bind", "/dev/null", p)
  return args
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory()
  } catch {
    return false
  }
}

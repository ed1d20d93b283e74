// Whether a TCP connection to one of wright's listeners comes from a sandboxed command (of this
// wright process or another of this user's, sandbox-registry.ts): a sandbox shares the host's loopback when its network is on, and `wright serve` or
// the TUI's --port on 127.0.0.1 without a password would let it trust its own folder or start
// an MCP server outside. Linux only, from /proc: the peer's socket inode is found in
// /proc/net/tcp{,6} by its address and port, and looked for among the open files of every
// process under a live bwrap (children from /proc/<pid>/task/*/children; in a PID namespace
// nothing inside outlives bwrap, so the tree holds everything the command started).
// When no sandboxed command runs it costs one readdir of the registry folder per connection.
// Not covered: another user's sandboxes (their registry is in their home): the password
// guards against other users.
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import type { Socket } from "node:net"
import { liveSandboxPids } from "./sandbox-registry"

export function sandboxedPeer(socket: Socket): boolean {
  if (process.platform !== "linux") return false
  const live = liveSandboxPids(true)
  if (live.size === 0) return false
  const { remoteAddress, remotePort, localAddress, localPort } = socket
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return false
  const inode = peerInode(remoteAddress, remotePort, localAddress, localPort)
  if (!inode) return false
  const link = `socket:[${inode}]`
  for (const root of live) for (const pid of tree(root)) if (holds(pid, link)) return true
  return false
}

/** The inode of the peer's end: the row whose local end is the peer and whose remote end is us. */
function peerInode(peerAddr: string, peerPort: number, ourAddr: string, ourPort: number): string | undefined {
  const want = `${hexPort(peerPort)} ${hexPort(ourPort)}`
  const peer = hex(peerAddr)
  const ours = hex(ourAddr)
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string
    try {
      text = readFileSync(file, "utf8")
    } catch {
      continue
    }
    for (const line of text.split("\n")) {
      const f = line.trim().split(/\s+/)
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (f.length < 10) continue
      const [la, lp] = f[1]!.split(":")
      const [ra, rp] = f[2]!.split(":")
      if (`${lp} ${rp}` !== want) continue
      if (la === peer && ra === ours) return f[9]
    }
  }
  return undefined
}

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, "0")

/** An address as /proc/net/tcp{,6} prints it: each 32-bit word in host (little-endian) byte order. */
function hex(address: string): string {
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(address)
  const word = (bytes: number[]) =>
    bytes
      .reverse()
      .map((b) => b.toString(16).toUpperCase().padStart(2, "0"))
      .join("")
  if (v4) {
    const bytes = v4.slice(1).map(Number)
    // A v4-mapped address sits in tcp6 as ::ffff:a.b.c.d.
    return address.includes(":") ? `0000000000000000FFFF0000${word(bytes)}` : word(bytes)
  }
  const bytes = ipv6Bytes(address)
  let out = ""
  for (let i = 0; i < 16; i += 4) out += word(bytes.slice(i, i + 4))
  return out
}

function ipv6Bytes(address: string): number[] {
  const [head, tail] = address.split("::") as [string, string | undefined]
  const parse = (s: string | undefined) => (s ? s.split(":").map((g) => parseInt(g, 16)) : [])
  const h = parse(head)
  const t = parse(tail)
  const groups = tail === undefined ? h : [...h, ...new Array(8 - h.length - t.length).fill(0), ...t]
  return groups.flatMap((g) => [g >> 8, g & 0xff])
}

/** `root` and every process under it. */
function tree(root: number): number[] {
  const out: number[] = []
  const queue = [root]
  while (queue.length > 0 && out.length < 10_000) {
    const pid = queue.shift()!
    out.push(pid)
    let tasks: string[]
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tasks) {
      try {
        for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ")) if (c.trim()) queue.push(Number(c))
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return out
}

function holds(pid: number, link: string): boolean {
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return false
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return true
    } catch {
      // Closed meanwhile.
    }
  }
  return false
}

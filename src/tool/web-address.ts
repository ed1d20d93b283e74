// Which addresses webfetch must not reach on its own: loopback, private networks (RFC 1918,
// CGNAT, IPv6 ULA), link-local, unspecified, cloud metadata endpoints and reserved ranges,
// in every spelling an address can take once parsed (IPv4-mapped, -compatible, NAT64 and
// 6to4 IPv6 addresses carry an IPv4 address and are judged by it). Names are judged only
// where their meaning is fixed (`localhost`, the metadata names); any other name is judged
// by the addresses it resolves to.
import net from "node:net"

export type AddressKind = "loopback" | "private" | "link-local" | "unspecified" | "cloud metadata" | "reserved"

const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"])

/** The kind of a host as a URL names it (an IP literal, with or without brackets, or a name); undefined when only DNS can tell. */
export function hostKind(hostname: string): AddressKind | undefined {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase().replace(/\.$/, "")
  if (net.isIP(host)) return addressKind(host)
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback"
  if (METADATA_NAMES.has(host)) return "cloud metadata"
  return undefined
}

/** The kind of an IP address webfetch refuses, or undefined for a public address. */
export function addressKind(ip: string): AddressKind | undefined {
  if (net.isIPv4(ip)) return ipv4Kind(ipv4ToInt(ip)!)
  const groups = net.isIPv6(ip.split("%")[0]!) ? ipv6Groups(ip.split("%")[0]!) : undefined
  return groups ? ipv6Kind(groups) : "reserved"
}

function inRange(value: number, base: string, bits: number): boolean {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
  return ((value & mask) >>> 0) === ((ipv4ToInt(base)! & mask) >>> 0)
}

const IPV4: [string, number, AddressKind][] = [
  ["169.254.169.254", 32, "cloud metadata"],
  ["100.100.100.200", 32, "cloud metadata"],
  ["0.0.0.0", 8, "unspecified"],
  ["127.0.0.0", 8, "loopback"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["100.64.0.0", 10, "private"],
  ["169.254.0.0", 16, "link-local"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["198.18.0.0", 15, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "reserved"],
  ["240.0.0.0", 4, "reserved"],
]

function ipv4Kind(value: number): AddressKind | undefined {
  return IPV4.find(([base, bits]) => inRange(value, base, bits))?.[2]
}

function ipv4ToInt(ip: string): number | undefined {
  const parts = ip.split(".").map(Number)
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0
}

/** Eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part included). */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip
  if (text.includes(".")) {
    const at = text.lastIndexOf(":")
    const v4 = ipv4ToInt(text.slice(at + 1))
    if (v4 === undefined) return undefined
    text = `${text.slice(0, at + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const head = halves[0] ? halves[0].split(":") : []
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : []
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0
  const groups = [...head, ...Array<string>(Math.max(fill, 0)).fill("0"), ...tail].map((g) => parseInt(g, 16))
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined
}

function ipv6Kind(g: number[]): AddressKind | undefined {
  const embedded = (hi: number, lo: number) => ipv4Kind(((hi << 16) | lo) >>> 0)
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  if (zeros(0, 8)) return "unspecified"
  if (zeros(0, 7) && g[7] === 1) return "loopback"
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && zeros(2, 7) && g[7] === 0x254) return "cloud metadata"
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64): the IPv4 address decides.
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return embedded(g[6]!, g[7]!) ?? (g[5] === 0 ? "reserved" : undefined)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return embedded(g[6]!, g[7]!)
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "private"
  if (g[0] === 0x2002) return embedded(g[1]!, g[2]!)
  if ((g[0]! & 0xfe00) === 0xfc00) return "private"
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local"
  if ((g[0]! & 0xffc0) === 0xfec0) return "private"
  if ((g[0]! & 0xff00) === 0xff00) return "reserved"
  if (g[0] === 0x100 && zeros(1, 4)) return "reserved"
  if (g[0] === 0x2001 && (g[1] === 0 || g[1] === 0xdb8)) return "reserved"
  return undefined
}

import { describe, expect, it } from "vitest"
import { addressKind, hostKind } from "../../src/tool/web-address"

// [host as a URL writes it, kind]: the table is the specification of what webfetch refuses.
const HOSTS: [string, ReturnType<typeof hostKind>][] = [
  ["127.0.0.1", "loopback"],
  ["127.255.0.9", "loopback"],
  ["[::1]", "loopback"],
  ["::1", "loopback"],
  ["[::ffff:7f00:1]", "loopback"],
  ["[::ffff:127.0.0.1]", "loopback"],
  ["[64:ff9b::7f00:1]", "loopback"],
  ["[2002:7f00:1::]", "loopback"],
  ["localhost", "loopback"],
  ["LocalHost.", "loopback"],
  ["api.localhost", "loopback"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["[::]", "unspecified"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.0.10", "private"],
  ["100.64.0.1", "private"],
  ["100.127.255.254", "private"],
  ["[fc00::1]", "private"],
  ["[fd12:3456::1]", "private"],
  ["[::ffff:a00:1]", "private"],
  ["169.254.1.1", "link-local"],
  ["[fe80::1]", "link-local"],
  ["[fe80::1%25eth0]", "link-local"],
  ["169.254.169.254", "cloud metadata"],
  ["[::ffff:a9fe:a9fe]", "cloud metadata"],
  ["[fd00:ec2::254]", "cloud metadata"],
  ["100.100.100.200", "cloud metadata"],
  ["metadata.google.internal", "cloud metadata"],
  ["metadata", "cloud metadata"],
  ["224.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["[ff02::1]", "reserved"],
  ["[::8.8.8.8]", "reserved"],
  ["8.8.8.8", undefined],
  ["172.32.0.1", undefined],
  ["100.128.0.1", undefined],
  ["[2606:4700::1111]", undefined],
  ["[::ffff:808:808]", undefined],
  ["example.com", undefined],
  ["localhost.example.com", undefined],
]

describe("web address", () => {
  it.each(HOSTS)("web address - %s is %s", (host, kind) => {
    expect(hostKind(host.replace("%25", "%"))).toBe(kind)
  })

  it("web address - a resolver's answers are judged the same way", () => {
    expect(addressKind("::ffff:10.0.0.1")).toBe("private")
    expect(addressKind("fe80::1%eth0")).toBe("link-local")
    expect(addressKind("93.184.216.34")).toBeUndefined()
  })
})

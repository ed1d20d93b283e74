import { randomBytes } from "node:crypto"

// OpenCode-compatible ids: `<prefix>_<12 hex><14 base62>`. The hex is 6 bytes of
// `ms * 4096 + counter`, so ids sort by creation time as strings. Descending ids
// (sessions) store the bitwise NOT of that value, so the newest sorts first.
export type IdPrefix = "ses" | "msg" | "prt" | "per" | "que" | "evt" | "tool" | "pty" | "usr" | "inb"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const MAX48 = 2n ** 48n - 1n

let lastMs = 0
let counter = 0

function randomBase62(length: number): string {
  const bytes = randomBytes(length)
  let out = ""
  for (let i = 0; i < length; i++) out += BASE62[bytes[i]! % 62]
  return out
}

function create(prefix: IdPrefix, descending: boolean, now: number): string {
  if (now !== lastMs) {
    lastMs = now
    counter = 0
  }
  counter++
  let value = BigInt(now) * 4096n + BigInt(counter)
  if (descending) value = MAX48 - (value & MAX48)
  return `${prefix}_${value.toString(16).padStart(12, "0").slice(-12)}${randomBase62(14)}`
}

export function ascending(prefix: IdPrefix, now = Date.now()): string {
  return create(prefix, false, now)
}

export function descending(prefix: IdPrefix, now = Date.now()): string {
  return create(prefix, true, now)
}

/** Milliseconds encoded in an ascending id. */
export function timestamp(id: string): number {
  const hex = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 13)
  return Number(BigInt("0x" + hex) / 4096n)
}

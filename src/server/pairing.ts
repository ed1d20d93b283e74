// Pairing: how a browser gets into `wright web` without a password. The CLI mints a one-time
// code (single use, 5 minutes); opening `/pair?code=…` trades it for a device cookie
// (HttpOnly, SameSite=Strict). Everything lives in this process's memory: a cookie is good for
// this server instance only, and a restart unpairs every browser. Browsers send a host's
// cookies to every port of it, so a server of another local user that the browser visits would
// receive the cookie: the cookie alone opens only the UI's files. The API also wants the device's
// key, which the pairing redirect hands to the page in the URL fragment (never sent to a server)
// and the page keeps in its origin's localStorage, which no other port can read. The admin token is what
// `wright web pair` on the same machine proves it may mint codes with (it reads it from a 0600
// state file); it is accepted only on the /web/ routes.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

/** Default life of a pairing code. */
export const PAIR_TTL_MS = 5 * 60_000

export interface Device {
  id: string
  /** The browser's User-Agent when it paired, to tell devices apart in a list. */
  name: string
  created: number
  lastSeen: number
}

export interface PairingOptions {
  /** Life of a code (default 5 minutes). Tests shorten it (WRIGHT_PAIR_TTL_MS, read by the CLI). */
  ttlMs?: number
  now?: () => number
}

const token = (bytes = 24) => randomBytes(bytes).toString("base64url")
const digest = (s: string) => createHash("sha256").update(s).digest()

export function createPairing(opts: PairingOptions = {}) {
  const ttlMs = opts.ttlMs ?? PAIR_TTL_MS
  const now = opts.now ?? Date.now
  /** Unused codes by their digest, with their expiry. */
  const codes = new Map<string, number>()
  const devices = new Map<string, Device & { secret: Buffer; key: Buffer }>()
  const revokeListeners = new Set<(id: string) => void>()
  const adminToken = token(32)

  function sweep() {
    const t = now()
    for (const [code, expires] of codes) if (expires <= t) codes.delete(code)
  }

  return {
    /** Proves a local `wright web pair`: accepted only on /web/ routes. */
    adminToken,
    ttlMs,
    /** A fresh one-time code. */
    mint(): { code: string; expires: number } {
      sweep()
      const code = token()
      const expires = now() + ttlMs
      codes.set(digest(code).toString("hex"), expires)
      return { code, expires }
    },
    /** Trades a code for a device, its cookie value and its key; undefined when the code is unknown, used or expired. */
    redeem(code: string, name: string): { device: Device; cookie: string; key: string } | undefined {
      const slot = digest(code).toString("hex")
      const expires = codes.get(slot)
      codes.delete(slot)
      if (expires === undefined || expires <= now()) return undefined
      const id = `dev_${token(9)}`
      const secret = token(32)
      const key = token(32)
      const t = now()
      const device = { id, name: name.slice(0, 200) || "unknown browser", created: t, lastSeen: t }
      devices.set(id, { ...device, secret: digest(secret), key: digest(key) })
      return { device, cookie: `${id}.${secret}`, key }
    },
    /**
     * The device a cookie value belongs to, or undefined. With `key` (the page's key, or null
     * when the request carried none) the key must match too. Constant time in the secrets.
     */
    check(cookie: string | undefined, key?: string | null): Device | undefined {
      const dot = cookie?.indexOf(".") ?? -1
      if (!cookie || dot < 1) return undefined
      const found = devices.get(cookie.slice(0, dot))
      if (!found || !timingSafeEqual(found.secret, digest(cookie.slice(dot + 1)))) return undefined
      if (key !== undefined && (key === null || !timingSafeEqual(found.key, digest(key)))) return undefined
      found.lastSeen = now()
      const { secret: _, key: __, ...device } = found
      return device
    },
    isAdmin(given: string | null | undefined): boolean {
      return !!given && timingSafeEqual(digest(given), digest(adminToken))
    },
    devices(): Device[] {
      return [...devices.values()].map(({ secret: _, key: __, ...d }) => d)
    },
    /** Unpairs a device: its cookie stops working and its open event streams end. */
    revoke(id: string): boolean {
      const had = devices.delete(id)
      if (had) for (const fn of [...revokeListeners]) fn(id)
      return had
    },
    onRevoke(fn: (id: string) => void): () => void {
      revokeListeners.add(fn)
      return () => void revokeListeners.delete(fn)
    },
  }
}

export type Pairing = ReturnType<typeof createPairing>

/** The cookie's name: per port, since browsers share cookies between the ports of a host. */
export const pairCookieName = (port: number) => `wright_${port}`

/** The value of cookie `name` in a Cookie header. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

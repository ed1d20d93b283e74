// One HTTP GET for webfetch, without following redirects, whose connection is checked where
// it is made: the socket's address lookup refuses loopback, private, link-local and metadata
// addresses (unless the caller says this host may have them), so a name that resolves to a
// public address when checked and to 127.0.0.1 when connecting (DNS rebinding) is refused.
// IP literals never reach a lookup; the caller judges those from the URL.
import type http from "node:http"
import type { LookupFunction } from "node:net"
import type { Readable } from "node:stream"
import { lazyModule } from "../util"
import { type AddressKind, addressKind } from "./web-address"

// Node's HTTP client, TLS, DNS and zlib load with the first webfetch, not with every start.
const dns = lazyModule<typeof import("node:dns")>("node:dns")
const nodeHttp = lazyModule<typeof import("node:http")>("node:http")
const nodeHttps = lazyModule<typeof import("node:https")>("node:https")
const zlib = lazyModule<typeof import("node:zlib")>("node:zlib")

export interface Resolved {
  address: string
  family: number
}

/** Resolves a host name to every address it has. */
export type Lookup = (hostname: string) => Promise<Resolved[]>

export const systemLookup: Lookup = (hostname) => dns().promises.lookup(hostname, { all: true, verbatim: true })

/** A host resolved to an address webfetch does not reach without a rule naming the host. */
export class AddressRefusedError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: AddressKind,
  ) {
    super(`${host} resolves to ${address}, a ${kind} address`)
    this.name = "AddressRefusedError"
  }
}

/** The first address of `addresses` that is not public. */
export function firstRefused(addresses: Resolved[]): { address: string; kind: AddressKind } | undefined {
  for (const { address } of addresses) {
    const kind = addressKind(address)
    if (kind) return { address, kind }
  }
  return undefined
}

export interface WebResponse {
  status: number
  statusText: string
  headers: http.IncomingHttpHeaders
  /** The body, decompressed. */
  body: Readable
  /** Drops the rest of the body and the connection. */
  cancel(): void
}

export function get(
  url: URL,
  opts: { headers: Record<string, string>; signal: AbortSignal; lookup: Lookup; allowPrivate: boolean },
): Promise<WebResponse> {
  const guarded: LookupFunction = (hostname, options, callback) => {
    opts.lookup(hostname).then(
      (found) => {
        const refused = opts.allowPrivate ? undefined : firstRefused(found)
        if (refused) return callback(new AddressRefusedError(hostname, refused.address, refused.kind), "", 0)
        const usable = options.family ? found.filter((a) => a.family === options.family) : found
        if (usable.length === 0) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "", 0)
        if (options.all) return callback(null, usable)
        callback(null, usable[0]!.address, usable[0]!.family)
      },
      (e: NodeJS.ErrnoException) => callback(e, "", 0),
    )
  }
  const client = url.protocol === "https:" ? nodeHttps() : nodeHttp()
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: "GET",
      headers: { ...opts.headers, "Accept-Encoding": "gzip, deflate, br" },
      signal: opts.signal,
      lookup: guarded,
      // A fresh connection every time: a pooled socket would skip the lookup above.
      agent: false,
    })
    req.on("error", reject)
    req.on("response", (res) => {
      const body = decoded(res)
      body.on("error", () => {})
      resolve({
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? "",
        headers: res.headers,
        body,
        cancel: () => {
          res.destroy()
          if (body !== res) body.destroy()
        },
      })
    })
    req.end()
  })
}

function decoded(res: http.IncomingMessage): Readable {
  const encoding = String(res.headers["content-encoding"] ?? "").trim().toLowerCase()
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib().createGunzip()
      : encoding === "br"
        ? zlib().createBrotliDecompress()
        : encoding === "deflate"
          ? zlib().createInflate()
          : undefined
  if (!decoder) return res
  res.on("error", (e) => decoder.destroy(e))
  return res.pipe(decoder)
}

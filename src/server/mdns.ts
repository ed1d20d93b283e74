// `--mdns`: advertises a guarded listener on the local network as an `_http._tcp` service
// named `wright-<port>`, with the host name `mdnsDomain` (default `wright.local`), through
// bonjour-service (what OpenCode uses). Off unless asked for. A server without a password is
// never advertised on a network bind, --insecure or not: telling the LAN where an open
// agent listens is worse than listening. On a loopback bind (only when asked explicitly,
// since --mdns alone binds 0.0.0.0) it is advertised too, though only this machine can connect.
import { isLoopback } from "./listener"

export const DEFAULT_MDNS_DOMAIN = "wright.local"

export interface Advertised {
  /** The service instance name, `wright-<port>`. */
  name: string
  host: string
  /** Sends the goodbye packets and closes the mDNS socket. */
  stop(): Promise<void>
}

/** Why `--mdns` is refused for this bind, or undefined when it may go ahead. */
export function mdnsRefusal(hostname: string, password: string | undefined): string | undefined {
  if (password || isLoopback(hostname)) return undefined
  return (
    `--mdns: refusing to advertise a server without a password on ${hostname}: anyone on the network would find it and could run commands on this machine; ` +
    "set WRIGHT_SERVER_PASSWORD (or --password-file PATH)"
  )
}

export function checkMdnsDomain(domain: string): string {
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.local$/i.test(domain)) {
    throw new Error(`--mdns-domain: expected a .local host name such as ${DEFAULT_MDNS_DOMAIN}, received ${JSON.stringify(domain)}`)
  }
  return domain
}

export async function advertise(opts: { port: number; hostname: string; password?: string; domain?: string }): Promise<Advertised> {
  const refused = mdnsRefusal(opts.hostname, opts.password)
  if (refused) throw new Error(refused)
  const host = checkMdnsDomain(opts.domain ?? DEFAULT_MDNS_DOMAIN)
  // A CommonJS package: bundled, its exports may sit under `default`.
  const mod = (await import("bonjour-service")) as typeof import("bonjour-service") & { default?: typeof import("bonjour-service") }
  const Bonjour = mod.Bonjour ?? mod.default!.Bonjour
  const bonjour = new Bonjour()
  const name = `wright-${opts.port}`
  const service = bonjour.publish({ name, type: "http", port: opts.port, host, txt: { path: "/", app: "wright", auth: opts.password ? "basic" : "none" } })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, 3000)
    service.once("up", () => (clearTimeout(timer), resolve()))
    service.once("error", (e: Error) => (clearTimeout(timer), reject(new Error(`--mdns: could not advertise the server: ${e.message}`))))
  })
  return {
    name,
    host,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = setTimeout(() => (bonjour.destroy(), resolve()), 1500)
        bonjour.unpublishAll(() => {
          clearTimeout(done)
          bonjour.destroy()
          resolve()
        })
      }),
  }
}

// `wright web`: `serve` with the browser UI and pairing on (serve/execute.ts does the
// serving; `announce` here prints the pairing link and QR). `wright web pair|devices|revoke`
// reach a running one through its state file (state.ts) and its /web/ routes.
import { networkInterfaces } from "node:os"
import { createPairing, PAIR_TTL_MS, type Device, type Pairing } from "../../server"
import { openBrowser } from "../browser"
import type { ServeArgs } from "../args"
import { bold, dim, UserError } from "../ui"
import { runningWebServers, writeWebState, type WebState } from "./state"

export interface WebArgs extends ServeArgs {
  open?: boolean
}

export interface WebAdminArgs {
  port?: number
  id?: string
}

/**
 * The pairing of one server. WRIGHT_PAIR_TTL_MS shortens a code's life: it exists for the tests
 * (a code that expires in a second), not for users.
 */
export function webPairing(env: NodeJS.ProcessEnv): Pairing {
  const ttl = env.WRIGHT_PAIR_TTL_MS ? Number(env.WRIGHT_PAIR_TTL_MS) : PAIR_TTL_MS
  if (!Number.isFinite(ttl) || ttl <= 0) throw new UserError(`WRIGHT_PAIR_TTL_MS: expected a number of milliseconds, got ${env.WRIGHT_PAIR_TTL_MS}`)
  return createPairing({ ttlMs: ttl })
}

/** The address a phone on the network opens: the bound one, or for a wildcard bind the first LAN address. */
function reachableUrl(url: string, hostname: string): string {
  if (!["0.0.0.0", "::", ""].includes(hostname)) return url
  const lan = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)
  if (!lan) return url
  const u = new URL(url)
  u.hostname = lan.address
  return u.href.replace(/\/$/, "")
}

/** Prints the address, a pairing link (and its QR code on a terminal), records the state file; returns its remover. */
export async function announce(opts: { url: string; port: number; hostname: string; pairing: Pairing; open?: boolean; cwd: string }): Promise<() => void> {
  const base = reachableUrl(opts.url, opts.hostname)
  const link = `${base}/pair?code=${opts.pairing.mint().code}`
  const minutes = Math.round(opts.pairing.ttlMs / 60_000)
  process.stdout.write(`Web UI: ${base}\nPairing link (one use, ${minutes > 0 ? `${minutes} minutes` : `${opts.pairing.ttlMs} ms`}): ${link}\n`)
  if (process.stdout.isTTY) {
    const QRCode = (await import("qrcode")).default
    process.stdout.write(`${await QRCode.toString(link, { type: "terminal", small: true })}\n`)
  }
  process.stdout.write(dim(`Another link: wright web pair${opts.port !== 4096 ? ` --port ${opts.port}` : ""}\n`))
  const remove = writeWebState(process.env, { url: opts.url, port: opts.port, pid: process.pid, adminToken: opts.pairing.adminToken })
  process.once("exit", remove)
  if (opts.open) await openBrowser(link, opts.cwd)
  return remove
}

function pickServer(port: number | undefined): WebState {
  const all = runningWebServers(process.env)
  const found = port === undefined ? all : all.filter((s) => s.port === port)
  if (found.length === 0) throw new UserError(port === undefined ? "No wright web server is running for this user (start one with wright web)" : `--port: no wright web server of this user runs on port ${port}`)
  if (found.length > 1) throw new UserError(`Several wright web servers run (ports ${found.map((s) => s.port).join(", ")}): pick one with --port`)
  return found[0]!
}

async function admin(state: WebState, method: string, pathname: string): Promise<unknown> {
  const res = await fetch(`${state.url}${pathname}`, { method, headers: { "x-wright-admin": state.adminToken } }).catch((e) => {
    throw new UserError(`Cannot reach the wright web server at ${state.url}: ${(e as Error).message}`)
  })
  const body = (await res.json().catch(() => undefined)) as { data?: { message?: string } } | undefined
  if (!res.ok) throw new UserError(`${method} ${pathname}: ${body?.data?.message ?? `HTTP ${res.status}`}`)
  return body
}

export async function webPair(args: WebAdminArgs) {
  const state = pickServer(args.port)
  const { url } = (await admin(state, "POST", "/web/pair")) as { url: string }
  process.stdout.write(`Pairing link (one use, 5 minutes): ${url}\n`)
  if (process.stdout.isTTY) {
    const QRCode = (await import("qrcode")).default
    process.stdout.write(`${await QRCode.toString(url, { type: "terminal", small: true })}\n`)
  }
}

export async function webDevices(args: WebAdminArgs) {
  const state = pickServer(args.port)
  const devices = (await admin(state, "GET", "/web/devices")) as Device[]
  if (!devices.length) return void process.stdout.write("No paired browsers.\n")
  for (const d of devices) process.stdout.write(`${bold(d.id)}  paired ${new Date(d.created).toISOString()}  last seen ${new Date(d.lastSeen).toISOString()}  ${d.name.replace(/[^\x20-\x7e]/g, "?")}\n`)
}

export async function webRevoke(args: WebAdminArgs) {
  if (!args.id) throw new UserError("wright web revoke: name the device id (wright web devices lists them)")
  const state = pickServer(args.port)
  const done = (await admin(state, "DELETE", `/web/devices/${encodeURIComponent(args.id)}`)) as boolean
  if (!done) throw new UserError(`No paired browser ${args.id} (wright web devices lists them)`)
  process.stdout.write(`Revoked ${args.id}: that browser is no longer paired.\n`)
}

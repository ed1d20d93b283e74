// `wright debug heap`: asks a core for a V8 heap snapshot (POST /debug/heap, written on the
// server's machine) and prints where it is; --output copies it.
import { copyFileSync, existsSync, unlinkSync } from "node:fs"
import path from "node:path"
import { createClient, type Client } from "../../sdk"
import type { HeapSnapshotInfo } from "../../protocol"
import { withLocalClient } from "../local"
import type { LogArgs } from "../log"
import { clientAuth } from "../password"
import { UserError } from "../ui"

export interface HeapArgs extends LogArgs {
  url?: string
  output?: string
  password?: string
  username?: string
  dir?: string
}

export async function heap(args: HeapArgs) {
  const info = args.url ? await remote({ ...args, url: args.url }) : await withLocalClient(args, (client) => client.debug.heap())
  let where = info.path
  if (args.output) {
    const target = path.resolve(args.output)
    if (!existsSync(info.path)) throw new UserError(`--output: the snapshot is on the server's machine, not this one: ${info.path}`)
    copyFileSync(info.path, target)
    unlinkSync(info.path)
    where = target
  }
  process.stdout.write(`${where}\n`)
}

async function remote(args: HeapArgs & { url: string }): Promise<HeapSnapshotInfo> {
  try {
    new URL(args.url)
  } catch {
    throw new UserError(`--url: not a URL: ${args.url} (e.g. http://127.0.0.1:4096)`)
  }
  const client: Client = createClient({ baseUrl: args.url, auth: clientAuth(args, process.env), directory: args.dir ? path.resolve(args.dir) : undefined })
  return client.debug.heap().catch((e: Error & { status?: number }) => {
    if (e.status === 401) throw new UserError(`${args.url}: wrong or missing password (WRIGHT_SERVER_PASSWORD, WRIGHT_SERVER_PASSWORD_FILE or -p)`)
    if (e.status === 404) throw new UserError(`${args.url}: this server has no heap snapshot route (an older wright, or not wright)`)
    if (e.status === undefined) throw new UserError(`${args.url}: cannot reach the server: ${e.message}`)
    throw e
  })
}

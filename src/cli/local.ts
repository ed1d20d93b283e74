import path from "node:path"
import { createClient, type Client } from "../sdk"
import { startCore } from "./core"

/** An SDK client over the in-process server for one-off commands; closes the core after `fn`. */
export async function withLocalClient<T>(dir: string | undefined, fn: (client: Client) => Promise<T>): Promise<T> {
  const directory = path.resolve(dir ?? process.cwd())
  const core = await startCore({ directory })
  try {
    return await fn(createClient({ baseUrl: "http://wright.internal", fetch: core.server.fetch, directory }))
  } finally {
    await core.close()
  }
}

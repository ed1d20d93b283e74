import path from "node:path"
import { createClient, type Client } from "../sdk"
import { startCore } from "./core"
import { cliLogger, type LogArgs } from "./log"

/** An SDK client over the in-process server for one-off commands; closes the core after `fn`. */
export async function withLocalClient<T>(args: { dir?: string } & LogArgs, fn: (client: Client) => Promise<T>, opts: { progress?: (line: string) => void } = {}): Promise<T> {
  const directory = path.resolve(args.dir ?? process.cwd())
  const core = await startCore({ directory, log: cliLogger(args), progress: opts.progress })
  try {
    return await fn(createClient({ baseUrl: "http://wright.internal", fetch: core.server.fetch, directory }))
  } finally {
    await core.close()
  }
}

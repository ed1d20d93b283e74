// `wright trust`: shows what a folder's config would do once trusted, then records the
// trust (or revokes it, or lists the trusted folders). It reads the config directly: no
// core, no database, nothing of the project's is started.
import { existsSync, statSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { createAgents } from "../../agent"
import { listTrustRecords, loadConfig, writeTrustRecord, xdgPaths } from "../../config"
import { catalogProviderIDs } from "../../llm"
import { shadowedBuiltins } from "../../session"
import { bold, dim, green, UserError } from "../ui"

export interface TrustArgs {
  dir?: string
  revoke?: boolean
  list?: boolean
}

export async function trust(args: TrustArgs) {
  const data = xdgPaths(process.env, os.homedir()).data
  if (args.list) {
    const records = listTrustRecords(data)
    if (records.length === 0) process.stdout.write("No trusted folders.\n")
    for (const r of records) process.stdout.write(`${r.directory}  ${dim(`since ${r.time}`)}\n`)
    return
  }
  const directory = path.resolve(args.dir ?? process.cwd())
  if (!existsSync(directory) || !statSync(directory).isDirectory()) throw new UserError(`dir: not a directory: ${directory}`)
  if (args.revoke) {
    writeTrustRecord(data, directory, undefined)
    process.stdout.write(`${directory} is no longer trusted: its config is held to what an untrusted folder may do.\n`)
    return
  }
  // The untrusted view names what trust would add; WRIGHT_TRUST must not hide it.
  const env = { ...process.env, WRIGHT_TRUST: "", OPENCODE_TRUST: "" }
  const loaded = await loadConfig({ directory, env, knownProviders: catalogProviderIDs(xdgPaths(env).cache) })
  const agents = createAgents({ config: loaded.config, dirs: loaded.dirs, toolOutputDir: os.tmpdir(), restricted: loaded.trust.restricted })
  // Everything a run would name in its notice: config keys, plugin and tool files, Markdown agents' rules, commands named like a built-in.
  const granted = [...loaded.trust.ignored, ...agents.held, ...shadowedBuiltins({ ...loaded.project, trusted: false }, directory)]
  const file = writeTrustRecord(data, directory, loaded.trust.hash)
  if (granted.length === 0) {
    process.stdout.write(`${green("Trusted")} ${directory}. Its config asks for nothing an untrusted folder lacks.\n`)
  } else {
    process.stdout.write(`${green("Trusted")} ${directory}. Its config may now:\n`)
    for (const line of granted) process.stdout.write(`  - ${line}\n`)
  }
  process.stdout.write(dim(`Recorded in ${file}. If the folder's config changes, wright holds it back again until you run ${bold("wright trust")} once more.\n`))
}

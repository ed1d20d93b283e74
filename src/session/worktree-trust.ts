// A worktree is a new folder, and trust is kept per folder: without this, a project the user
// trusted would lose its own config (its provider, its rules) in every worktree made from it.
// The trust carries over only when the worktree's config is exactly what the user trusted:
// the main checkout is trusted by its record (not by --trust for one run), and none of its
// config sources has an uncommitted, untracked or ignored change, so the worktree (checked
// out from HEAD) holds the same bytes. Anything else leaves the worktree untrusted, as any
// new folder is.
import { loadConfig, writeTrustRecord } from "../config"
import { worktreeGit, type Exec } from "../process"

/** Every project config source loadConfig reads at a checkout's root (config/load.ts). */
const CONFIG_SOURCES = ["wright.json", "wright.jsonc", "opencode.json", "opencode.jsonc", ".wright", ".opencode"]

/** Records trust for `worktree` when `main` is trusted and its config is committed as is; returns whether it did. */
export async function carryTrust(deps: { exec: Exec; dataDir: string; env: NodeJS.ProcessEnv }, main: string, worktree: string): Promise<boolean> {
  const env = { ...deps.env, WRIGHT_TRUST: undefined, OPENCODE_TRUST: undefined }
  const mainConfig = await loadConfig({ directory: main, env, home: deps.env.HOME })
  if (mainConfig.trust.source !== "record") return false
  const status = await worktreeGit(deps.exec, undefined, ["status", "--porcelain", "-z", "--ignored", "--untracked-files=all", "--", ...CONFIG_SOURCES.map((p) => `:(literal)${p}`)], { cwd: main })
  if (status.code !== 0 || status.stdout.length > 0) return false
  const own = await loadConfig({ directory: worktree, env, home: deps.env.HOME })
  if (own.trust.trusted) return true
  writeTrustRecord(deps.dataDir, worktree, own.trust.hash)
  return true
}

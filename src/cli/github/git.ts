// wright's own git calls in a GitHub run: branch, commit, fetch and push. They run outside the
// sandbox through the spawner (runGit: no hooks, no credential helpers, no system config). The
// token reaches only the fetch and push, as an HTTP header git reads from an environment
// variable (`--config-env`), so it is on no command line and in no file the model's commands
// could read. Which remote: GITHUB_SERVER_URL/GITHUB_REPOSITORY, never the checkout's own
// config (a command of the model's could point `origin` elsewhere).
import { runGit, worktreeGit, type Exec } from "../../process"

const AUTH_VAR = "WRIGHT_GITHUB_AUTH_HEADER"
const IDENTITY = ["user.name=wright", "user.email=wright@users.noreply.github.com"]

export interface Git {
  /** The remote URL pushes and fetches go to. */
  url: string
  run(args: string[], opts?: { remote?: boolean; quiet?: boolean }): Promise<string>
  /** Paths the checkout has changed (tracked or not), after `git add -A`. */
  stage(): Promise<boolean>
  /** The config key by which the checkout keeps a token any process could read (actions/checkout's default), if any. */
  persistedToken(): Promise<string | undefined>
}

export function createGit(exec: Exec, cwd: string, env: NodeJS.ProcessEnv): Git {
  const server = (env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "")
  const url = `${server}/${env.GITHUB_REPOSITORY}.git`
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? "https"
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${env.GITHUB_TOKEN ?? ""}`).toString("base64")}`

  async function run(args: string[], opts: { remote?: boolean } = {}): Promise<string> {
    if (opts.remote) {
      // Checked at every call: the sandbox keeps .git/config read-only, this keeps the token's way fixed even so.
      const redirect = await redirecting()
      if (redirect) throw new Error(`the checkout's git config sets ${redirect}, which could send the token elsewhere: wright does not fetch or push with it`)
    }
    // Filter drivers a checkout's .gitattributes names are blanked (worktreeGit): add and diff run them.
    const r = opts.remote
      ? await runGit(exec, [`--config-env=http.extraHeader=${AUTH_VAR}`, ...args], {
          cwd,
          env: { [AUTH_VAR]: header },
          // GIT_SAFE_CONFIG turns every transport off; this call needs the remote's own.
          config: [`protocol.${scheme}.allow=always`],
          timeout: 300_000,
        })
      : await worktreeGit(exec, undefined, ["-c", IDENTITY[0]!, "-c", IDENTITY[1]!, ...args], { cwd })
    if (r.code !== 0) throw new Error(`git ${args.join(" ")} failed (${r.code ?? "killed"}): ${r.stderr.trim().split("\n").slice(-3).join(" ")}`)
    return r.stdout.toString()
  }

  /** A local setting that would move or proxy a fetch or push (insteadOf, a proxy, an include). */
  async function redirecting(): Promise<string | undefined> {
    const r = await runGit(exec, ["config", "--local", "--name-only", "--get-regexp", "^(url|http|include|includeif|remote)\\..*(insteadof|proxy|path|sslverify|sslcainfo|extraheader|cookiefile)$"], { cwd })
    return r.stdout.toString().trim().split("\n")[0] || undefined
  }

  return {
    url,
    run,
    async stage() {
      await run(["add", "-A"])
      return (await run(["diff", "--cached", "--name-only", "--no-ext-diff"])).trim() !== ""
    },
    async persistedToken() {
      const r = await runGit(exec, ["config", "--local", "--get-regexp", "^http\\..*extraheader$"], { cwd })
      const names = r.stdout.toString().trim()
      return names ? names.split("\n")[0]!.split(" ")[0] : undefined
    },
  }
}

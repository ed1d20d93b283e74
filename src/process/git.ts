// wright's own git calls (the project id, the system prompt's status, the file status route, the
// snapshot store) start here, with git's code-running settings off. A repository's config is the
// repository's to write (a `.git/config`, or whatever `.git/commondir` points at), so anything it
// could name as a program must not run: fsmonitor, hooks, ssh, the pager, lazy fetches in a
// partial clone. Aliases never apply (only built-ins are called). Filter drivers (`clean` runs
// during `status`, `add`, `diff`) cannot be switched off by one setting, since their names are the
// repository's: see worktreeGit.
import type { Exec } from "./exec"
import type { Sandbox } from "./sandbox"
import { toolSandbox } from "./sandbox-variant"

/**
 * `-c` settings on every call. Command-line config outranks every file git reads. Not here:
 * `diff.external=` (git 2.39 tries to run the empty command): callers that diff pass
 * `--no-ext-diff --no-textconv` instead.
 */
export const GIT_SAFE_CONFIG = [
  "-c", "core.fsmonitor=false",
  "-c", "core.hooksPath=/dev/null",
  "-c", "core.sshCommand=false",
  "-c", "core.pager=cat",
  "-c", "core.askPass=",
  "-c", "credential.helper=",
  // No transport at all: a partial clone would otherwise fetch missing objects through one.
  "-c", "protocol.allow=never",
]

/** Variables that would move git elsewhere or make it run a program; removed from git's environment. */
const GIT_ENV_DROPPED = [
  "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_CEILING_DIRECTORIES", "GIT_NAMESPACE", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_SYSTEM",
  "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PAGER", "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR", "GIT_EXEC_PATH", "GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR",
]

const GIT_ENV: Record<string, string | undefined> = {
  ...Object.fromEntries(GIT_ENV_DROPPED.map((name) => [name, undefined])),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_TERMINAL_PROMPT: "0",
}

export interface GitOptions {
  cwd: string
  /** Laid over git's hardened environment (which drops the variables above). */
  env?: Record<string, string | undefined>
  /** Written to git's stdin. */
  input?: string | Buffer
  /** Milliseconds; default 120 s. */
  timeout?: number
  /** The sandbox git runs in (worktreeGit passes a read-only one); default: outside. */
  sandbox?: Sandbox | "off"
  /** Extra `-c name=value` settings, after the safe ones. */
  config?: string[]
}

export interface GitResult {
  code: number | null
  stdout: Buffer
  stderr: string
  timedOut: boolean
}

/**
 * Runs `git <args>` with GIT_SAFE_CONFIG, `--no-optional-locks`, no system config and a
 * scrubbed environment (no secrets: git needs none for local work). Resolves with the exit and
 * the output; rejects only when git cannot start (ENOENT kept in `code`).
 */
export async function runGit(exec: Exec, args: string[], opts: GitOptions): Promise<GitResult> {
  const extra = (opts.config ?? []).flatMap((c) => ["-c", c])
  const child = await exec(["git", "--no-optional-locks", ...GIT_SAFE_CONFIG, ...extra, ...args], {
    cwd: opts.cwd,
    env: { ...GIT_ENV, ...opts.env },
    stdin: opts.input === undefined ? "ignore" : "pipe",
    timeout: opts.timeout ?? 120_000,
    sandbox: opts.sandbox ?? "off",
    scrub: true,
  })
  const out: Buffer[] = []
  let err = ""
  child.stdout.on("data", (d: Buffer) => out.push(d))
  child.stderr.on("data", (d: Buffer) => (err += d.toString()))
  if (opts.input !== undefined) child.stdin!.end(opts.input)
  const exit = await child.done
  return { code: exit.code, stdout: Buffer.concat(out), stderr: err, timedOut: exit.timedOut }
}

/**
 * git in the project's own worktree (status, diff): its config and `.gitattributes` are the
 * repository's. With the App's sandbox on, git runs inside it, read-only and without a network,
 * so a filter driver the repository names can neither write outside nor send anything (git only
 * reads here; `--no-optional-locks` keeps the index as it is). Without the sandbox, the filter
 * drivers git's config defines are listed first and each is blanked with `-c` (an empty
 * `clean`/`smudge`/`process` runs nothing, `required=false` keeps git going). That listing reads
 * the superproject's config only: a submodule's own drivers are not seen, so callers without the
 * sandbox should not recurse into submodules.
 */
export async function worktreeGit(exec: Exec, sandbox: Sandbox | undefined, args: string[], opts: Omit<GitOptions, "sandbox" | "config">): Promise<GitResult> {
  if (sandbox?.state === "on") return runGit(exec, args, { ...opts, sandbox: readOnly(sandbox) })
  const listed = await runGit(exec, ["config", "-z", "--name-only", "--get-regexp", "^filter\\."], { cwd: opts.cwd, timeout: opts.timeout })
  const drivers = new Set(listed.stdout.toString().split("\0").map((name) => /^filter\.(.+)\.[^.]+$/s.exec(name)?.[1]).filter((d): d is string => d !== undefined))
  const config = [...drivers].flatMap((d) => [`filter.${d}.clean=`, `filter.${d}.smudge=`, `filter.${d}.process=`, `filter.${d}.required=false`])
  return runGit(exec, args, { ...opts, sandbox: "off", config })
}

/** The App's sandbox with nothing writable but its private temp dir, and no network. */
function readOnly(box: Extract<Sandbox, { state: "on" }>): Sandbox {
  // What commands may write they may read: a linked worktree's gitdir and common dir among it.
  return toolSandbox(box, { write: false, readable: box.policy.writable })!
}

// `wright github run`: one GitHub Actions event, start to finish. It decides whether to act (the
// mention, the author's association), prepares the checkout (a new branch for an issue, the
// pull request's branch, or a fork's head detached), runs one session headless with the
// sandbox required and a fixed set of permissions, then commits and pushes, opens a pull
// request or posts the patch, and always answers on the thread.
import os from "node:os"
import path from "node:path"
import { loadConfig } from "../../config"
import { createExec } from "../../process"
import type { MessageWithParts, Ruleset } from "../../protocol"
import { createClient } from "../../sdk"
import { parseModelRef } from "../../protocol"
import { startCore } from "../core"
import { UserError } from "../ui"
import { createGitHub, type GitHub } from "./api"
import { readEvent, type Trigger } from "./event"
import { createGit, type Git } from "./git"
import { buildPrompt } from "./prompt"

export const DEFAULT_MENTION = "/wright"
export const DEFAULT_ASSOCIATIONS = ["OWNER", "MEMBER", "COLLABORATOR"]
/** A patch longer than this is cut in the comment (GitHub refuses bodies over 65536 characters). */
const PATCH_LIMIT = 60_000

/**
 * Read-only tools, edits in the checkout and commands (sandboxed, see the core's overrides);
 * everything else, asks included, is denied: nobody is there to answer. Last match wins, and a
 * session's rules come after the agent's and the config's.
 */
export const GITHUB_RULES: Ruleset = [
  { permission: "*", pattern: "*", action: "deny" },
  ...["read", "glob", "grep", "list", "lsp", "edit", "todoread", "todowrite", "bash"].map((permission) => ({ permission, pattern: "*", action: "allow" as const })),
  // A command's own reading of files outside, or of git config it wrote, still asks: denied.
  ...["external_directory", "vcs_config", "sandbox_escape", "webfetch", "question", "plan_enter", "plan_exit"].map((permission) => ({ permission, pattern: "*", action: "deny" as const })),
]

export interface GithubRunArgs {
  dir?: string
  model?: string
}

type Mode = { kind: "branch"; branch: string } | { kind: "same"; ref: string } | { kind: "fork"; number: number }

const log = (line: string) => void process.stderr.write(`wright github: ${line}\n`)

export async function githubRun(args: GithubRunArgs, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const directory = path.resolve(args.dir ?? env.GITHUB_WORKSPACE ?? process.cwd())
  const read = readEvent(env)
  if ("skip" in read) {
    log(`nothing to do: ${read.skip}`)
    return 0
  }
  const t = read.trigger
  const loaded = await loadConfig({ directory, env, home: env.HOME || os.homedir() })
  const mention = loaded.config.github?.mention ?? DEFAULT_MENTION
  const allowed = loaded.config.github?.associations ?? DEFAULT_ASSOCIATIONS
  if (t.event !== "workflow_dispatch") {
    if (!t.request.includes(mention)) {
      log(`nothing to do: the ${t.event} text does not mention ${mention}`)
      return 0
    }
    if (!t.association || !allowed.includes(t.association)) {
      log(`nothing run: @${t.author} is ${t.association ?? "of no known association"}, and only ${allowed.join(", ")} may start wright (config: github.associations)`)
      return 0
    }
  }
  const gh = createGitHub(env)
  const exec = createExec({ env })
  const git = createGit(exec, directory, env)
  const persisted = await git.persistedToken()
  if (persisted) throw new UserError(`the checkout keeps a token in .git/config (${persisted}), where the model's commands could read it: check out with \`persist-credentials: false\` (actions/checkout)`)

  const runURL = env.GITHUB_RUN_ID ? `${(env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "")}/${gh.repo}/actions/runs/${env.GITHUB_RUN_ID}` : undefined
  try {
    const mode = await prepare(t, gh, git, env)
    log(`working ${describe(mode)}`)
    const outcome = mode.kind === "fork" ? "wright will post your changes as a patch on the pull request (it comes from a fork)." : mode.kind === "same" ? `wright will commit your changes to the pull request's branch ${mode.ref} and push them.` : `wright will commit your changes on the branch ${mode.branch} and open a pull request.`
    const summary = await runAgent(directory, buildPrompt(t, { repo: gh.repo, outcome }), args.model, loaded.config.sandbox?.network ?? false, env)
    process.stdout.write(summary + "\n")
    const result = await deliver(t, mode, summary, gh, git, env)
    await answer(t, gh, `${summary}\n\n${result}${runURL ? `\n\n[wright's run](${runURL})` : ""}`)
    log(result)
    return 0
  } catch (e) {
    const message = (e as Error).message
    log(`failed: ${message}`)
    await answer(t, gh, `wright could not finish: ${message}${runURL ? `\n\n[wright's run](${runURL})` : ""}`).catch((err) => log(`could not reply on the thread: ${(err as Error).message}`))
    return 1
  }
}

function describe(mode: Mode) {
  return mode.kind === "branch" ? `on the new branch ${mode.branch}` : mode.kind === "same" ? `on the pull request's branch ${mode.ref}` : `on pull request #${mode.number}'s head (a fork: the result is posted as a patch)`
}

async function prepare(t: Trigger, gh: GitHub, git: Git, env: NodeJS.ProcessEnv): Promise<Mode> {
  if (t.subject?.pull) {
    let head = t.head
    if (!head) {
      const pull = await gh.pull(t.subject.number)
      head = { ref: pull.head.ref, repo: pull.head.repo?.full_name ?? "" }
    }
    if (head.repo.toLowerCase() === gh.repo.toLowerCase()) {
      await git.run(["fetch", "--no-tags", git.url, `refs/heads/${head.ref}`], { remote: true })
      await git.run(["checkout", "-B", head.ref, "FETCH_HEAD"])
      return { kind: "same", ref: head.ref }
    }
    await git.run(["fetch", "--no-tags", git.url, `refs/pull/${t.subject.number}/head`], { remote: true })
    await git.run(["checkout", "--detach", "FETCH_HEAD"])
    return { kind: "fork", number: t.subject.number }
  }
  const branch = t.subject ? `wright/issue-${t.subject.number}${slug(t.subject.title)}` : `wright/run-${env.GITHUB_RUN_ID ?? Date.now()}`
  await git.run(["checkout", "-B", branch])
  return { kind: "branch", branch }
}

/** `-spelling-error-in-the-readme`: at most 40 characters of the title, safe in a ref. */
function slug(title: string) {
  const s = title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40).replace(/-+$/, "")
  return s ? `-${s}` : ""
}

/** What happened to the changes, as a line of the reply. */
async function deliver(t: Trigger, mode: Mode, summary: string, gh: GitHub, git: Git, env: NodeJS.ProcessEnv): Promise<string> {
  if (!(await git.stage())) return "No files were changed."
  const server = (env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "")
  if (mode.kind === "fork") {
    let patch = await git.run(["diff", "--cached", "--no-ext-diff", "--no-textconv", "--binary"])
    const cut = patch.length > PATCH_LIMIT
    if (cut) patch = patch.slice(0, PATCH_LIMIT)
    const fence = "`".repeat(Math.max(3, ...[...patch.matchAll(/`+/g)].map((m) => m[0].length + 1)))
    return `This pull request comes from a fork, so wright does not push to it. The patch${cut ? " (cut at 60,000 characters)" : ""}, to apply with \`git apply\`:\n\n${fence}diff\n${patch}${fence}`
  }
  const title = t.subject ? `wright: ${t.subject.title} (#${t.subject.number})` : `wright: ${firstLine(t.request)}`
  await git.run(["commit", "-q", "--no-verify", "-m", title, "-m", summary.slice(0, 4000)])
  const sha = (await git.run(["rev-parse", "HEAD"])).trim()
  if (mode.kind === "same") {
    await git.run(["push", git.url, `HEAD:refs/heads/${mode.ref}`], { remote: true })
    return `Pushed ${sha.slice(0, 7)} to ${mode.ref}: ${server}/${gh.repo}/commit/${sha}`
  }
  await git.run(["push", git.url, `HEAD:refs/heads/${mode.branch}`], { remote: true })
  const body = `${summary}\n\n${t.subject ? `Closes #${t.subject.number}.` : ""}`.trim()
  const pr = await gh.createPull({ title, head: mode.branch, base: t.defaultBranch, body })
  return `Opened pull request #${pr.number}: ${pr.html_url}`
}

function firstLine(s: string) {
  return s.trim().split("\n")[0]!.slice(0, 72)
}

/** Always on the thread the request came from; a dispatched run has none (the log has it). */
async function answer(t: Trigger, gh: GitHub, body: string) {
  if (!t.thread) return
  if (t.thread.kind === "review") await gh.reply(t.thread.pull, t.thread.commentID, body)
  else await gh.comment(t.thread.number, body)
}

/** One session in this process's core, sandbox required; resolves with the answer's text. */
async function runAgent(directory: string, prompt: string, model: string | undefined, network: boolean, env: NodeJS.ProcessEnv): Promise<string> {
  // The session's core never needs the GitHub token (only wright's own push does): it is not in
  // the App's environment at all, whatever a process it starts would be given.
  const coreEnv = { ...env }
  delete coreEnv.GITHUB_TOKEN
  const core = await startCore({ directory, env: coreEnv, overrides: { sandbox: { mode: "workspace-write", network, required: true } }, progress: (line) => log(line) })
  try {
    const client = createClient({ baseUrl: "http://wright.internal", fetch: core.server.fetch, directory })
    const session = await client.session.create({ title: "GitHub", permission: GITHUB_RULES })
    const events = new AbortController()
    const pump = (async () => {
      for await (const e of client.event.subscribe({ signal: events.signal })) {
        // The rules above leave nothing to ask; should a plugin's rule ask anyway, nobody answers yes.
        if (e.type === "permission.asked") {
          log(`refused: ${e.properties.permission} (${e.properties.patterns.join(", ")})`)
          await client.request("POST", `/permission/${encodeURIComponent(e.properties.id)}/reply`, { body: { reply: "reject" } }).catch(() => {})
        }
      }
    })().catch(() => {})
    let result: MessageWithParts
    try {
      result = await client.session.prompt(session.id, { ...(model ? { model: parseModelRef(model, "--model") } : {}), parts: [{ type: "text", text: prompt }] })
    } finally {
      events.abort()
      await pump
    }
    if (result.info.role === "assistant" && result.info.error) throw new Error(`the agent failed: ${String((result.info.error.data as { message?: unknown })?.message ?? result.info.error.name)}`)
    // The loop ended on tool results the model never saw: a denied call stopped it.
    if (result.info.role === "assistant" && result.info.finish === "tool-calls") throw new Error("the agent stopped before finishing: a tool call was refused (a GitHub run allows reading, edits in the checkout and sandboxed commands)")
    const text = result.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n").trim()
    return text || "wright finished without a summary."
  } finally {
    await core.close()
  }
}

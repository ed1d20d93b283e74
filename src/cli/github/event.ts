// What an Actions event asks of wright: read from GITHUB_EVENT_NAME and the webhook payload at
// GITHUB_EVENT_PATH. Everything here comes from GitHub users and is untrusted text; this file
// only picks the fields out, it decides nothing.
import { readFileSync } from "node:fs"
import { UserError } from "../ui"

/** The thread wright answers on. */
export type Thread = { kind: "issue"; number: number } | { kind: "review"; pull: number; commentID: number }

export interface Trigger {
  event: string
  /** The text that must carry the mention (a comment, an issue's or a PR's body, a dispatch prompt). */
  request: string
  author: string
  /** GitHub's author_association; undefined for workflow_dispatch (only users with write access can start one). */
  association?: string
  /** The issue or pull request the request is about (absent for workflow_dispatch). */
  subject?: { number: number; title: string; body: string; pull: boolean }
  /** For a review comment: where in the diff it was left. */
  review?: { path: string; line?: number; diffHunk: string }
  /** The pull request's head, when the payload carries it (a review comment, a pull_request event). */
  head?: { ref: string; repo: string }
  thread?: Thread
  defaultBranch: string
}

/** The events the workflow subscribes to; the rest are refused by name. */
export const EVENTS = ["issue_comment", "pull_request_review_comment", "issues", "pull_request", "workflow_dispatch"] as const

/** Reads the event; `{ skip }` says why when it is one wright does not act on, e.g. a deleted comment. */
export function readEvent(env: NodeJS.ProcessEnv): { trigger: Trigger } | { skip: string } {
  const name = env.GITHUB_EVENT_NAME
  const file = env.GITHUB_EVENT_PATH
  if (!name) throw new UserError("GITHUB_EVENT_NAME is not set: `wright github run` runs inside GitHub Actions")
  if (!file) throw new UserError("GITHUB_EVENT_PATH is not set: `wright github run` runs inside GitHub Actions")
  let p: Payload
  try {
    p = JSON.parse(readFileSync(file, "utf8")) as Payload
  } catch (e) {
    throw new UserError(`GITHUB_EVENT_PATH: cannot read the event payload ${file} (${(e as Error).message})`)
  }
  if (!(EVENTS as readonly string[]).includes(name)) return { skip: `the ${name} event is not one wright acts on (${EVENTS.join(", ")})` }
  const defaultBranch = p.repository?.default_branch ?? "main"
  const subject = (x: Issue, pull: boolean) => ({ number: x.number, title: x.title ?? "", body: x.body ?? "", pull })
  switch (name) {
    case "issue_comment": {
      if (p.action !== "created") return { skip: `a comment ${p.action}, not created` }
      const { issue, comment } = need(p, "issue", "comment")
      const pull = Boolean(issue.pull_request)
      return { trigger: { event: name, request: comment.body ?? "", author: comment.user.login, association: comment.author_association, subject: subject(issue, pull), thread: { kind: "issue", number: issue.number }, defaultBranch } }
    }
    case "pull_request_review_comment": {
      if (p.action !== "created") return { skip: `a review comment ${p.action}, not created` }
      const { pull_request: pr, comment } = need(p, "pull_request", "comment")
      return {
        trigger: {
          event: name,
          request: comment.body ?? "",
          author: comment.user.login,
          association: comment.author_association,
          subject: subject(pr, true),
          review: { path: comment.path ?? "", line: comment.line ?? comment.original_line ?? undefined, diffHunk: comment.diff_hunk ?? "" },
          head: headOf(pr),
          thread: { kind: "review", pull: pr.number, commentID: comment.id },
          defaultBranch,
        },
      }
    }
    case "issues": {
      if (p.action !== "opened" && p.action !== "edited") return { skip: `an issue ${p.action}, not opened` }
      const { issue } = need(p, "issue")
      return { trigger: { event: name, request: issue.body ?? "", author: issue.user.login, association: issue.author_association, subject: subject(issue, false), thread: { kind: "issue", number: issue.number }, defaultBranch } }
    }
    case "pull_request": {
      if (p.action !== "opened" && p.action !== "edited") return { skip: `a pull request ${p.action}, not opened` }
      const { pull_request: pr } = need(p, "pull_request")
      return { trigger: { event: name, request: pr.body ?? "", author: pr.user.login, association: pr.author_association, subject: subject(pr, true), head: headOf(pr), thread: { kind: "issue", number: pr.number }, defaultBranch } }
    }
    default: {
      const prompt = String(p.inputs?.prompt ?? "")
      if (!prompt.trim()) return { skip: "workflow_dispatch without a prompt input" }
      return { trigger: { event: name, request: prompt, author: p.sender?.login ?? "", defaultBranch } }
    }
  }
}

function headOf(pr: Issue) {
  return pr.head ? { ref: pr.head.ref, repo: pr.head.repo?.full_name ?? "" } : undefined
}

function need<K extends keyof Payload>(p: Payload, ...keys: K[]): Required<Pick<Payload, K>> {
  for (const k of keys) if (!p[k]) throw new UserError(`GITHUB_EVENT_PATH: the payload has no "${k}"`)
  return p as Required<Pick<Payload, K>>
}

interface User {
  login: string
}
interface Issue {
  number: number
  title?: string
  body?: string | null
  user: User
  author_association?: string
  pull_request?: unknown
  head?: { ref: string; repo?: { full_name: string } | null }
}
interface Comment {
  id: number
  body?: string
  user: User
  author_association?: string
  path?: string
  line?: number | null
  original_line?: number | null
  diff_hunk?: string
}
interface Payload {
  action?: string
  issue?: Issue
  pull_request?: Issue
  comment?: Comment
  repository?: { full_name: string; default_branch?: string }
  sender?: User
  inputs?: Record<string, unknown>
}

// GitHub's REST API, the few calls `wright github run` makes, over fetch. GITHUB_API_URL makes
// GitHub Enterprise Server work (https://ghe.example/api/v3).
import { UserError } from "../ui"

export interface PullInfo {
  number: number
  head: { ref: string; sha: string; repo: { full_name: string } | null }
  base: { ref: string; repo: { full_name: string } }
  html_url: string
}

export interface GitHub {
  repo: string
  pull(number: number): Promise<PullInfo>
  createPull(input: { title: string; head: string; base: string; body: string }): Promise<{ number: number; html_url: string }>
  /** A comment on an issue or a pull request's conversation. */
  comment(number: number, body: string): Promise<{ html_url: string }>
  /** A reply in a review comment's thread. */
  reply(pull: number, commentID: number, body: string): Promise<{ html_url: string }>
}

/** A client for GITHUB_REPOSITORY with GITHUB_TOKEN; rejects with the status and GitHub's message on a failed call. */
export function createGitHub(env: NodeJS.ProcessEnv): GitHub {
  const repo = env.GITHUB_REPOSITORY
  const token = env.GITHUB_TOKEN
  if (!repo || !/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new UserError(`GITHUB_REPOSITORY: expected owner/name, got ${JSON.stringify(repo ?? "")}`)
  if (!token) throw new UserError("GITHUB_TOKEN is not set: give the workflow's token to the step (env: GITHUB_TOKEN: ${{ github.token }})")
  const base = (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, "")
  const [owner, name] = repo.split("/") as [string, string]
  const root = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`

  async function call<T>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await fetch(base + root + route, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/vnd.github+json",
        "x-github-api-version": "2022-11-28",
        "user-agent": "wright",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    if (!res.ok) {
      let message = text.slice(0, 300)
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message
      } catch {}
      throw new Error(`GitHub ${method} ${root}${route}: ${res.status} ${message}`)
    }
    return (text ? JSON.parse(text) : {}) as T
  }

  return {
    repo,
    pull: (number) => call("GET", `/pulls/${number}`),
    createPull: (input) => call("POST", "/pulls", input),
    comment: (number, body) => call("POST", `/issues/${number}/comments`, { body }),
    reply: (pull, commentID, body) => call("POST", `/pulls/${pull}/comments/${commentID}/replies`, { body }),
  }
}

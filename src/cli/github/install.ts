// `wright github install`: writes the workflow that runs wright on /wright comments, and says
// which repository secret the model's key goes in.
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { loadConfig } from "../../config"
import { catalogProviders } from "../../llm"
import { UserError } from "../ui"
import { DEFAULT_MENTION } from "./run"

/** Where the composite action lives (action.yml at the root of wright's repository). */
export const DEFAULT_ACTION = "wright-agent/wright@main"
export const WORKFLOW_FILE = ".github/workflows/wright.yml"

export interface GithubInstallArgs {
  dir?: string
  provider?: string
  model?: string
  action?: string
  force?: boolean
}

export async function githubInstall(args: GithubInstallArgs, out: (s: string) => void): Promise<void> {
  const directory = path.resolve(args.dir ?? process.cwd())
  const file = path.join(directory, WORKFLOW_FILE)
  if (existsSync(file) && !args.force) throw new UserError(`${WORKFLOW_FILE} exists already: run with --force to replace it`)
  const loaded = await loadConfig({ directory, env: process.env, home: process.env.HOME || os.homedir() })
  const model = args.model ?? loaded.config.model
  const providerID = args.provider ?? model?.split("/")[0]
  if (!providerID) throw new UserError("--provider: no model is configured here; name the provider whose key the workflow uses, e.g. --provider anthropic")
  const secret = secretFor(providerID, loaded.config.provider?.[providerID]?.env)
  const action = args.action ?? DEFAULT_ACTION
  if (!/^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[\w./-]+$/.test(action)) throw new UserError(`--action: expected owner/repo@ref, got ${JSON.stringify(action)}`)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, workflow({ action, secret, model: args.model, mention: loaded.config.github?.mention ?? DEFAULT_MENTION }))
  out(`Wrote ${WORKFLOW_FILE}.\n`)
  out(`Add the repository secret ${secret} (Settings → Secrets and variables → Actions → New repository secret), then commit the workflow.\n`)
  out(`Comment "${loaded.config.github?.mention ?? DEFAULT_MENTION} <what to do>" on an issue or a pull request to start wright.\n`)
}

/** The provider's key variable: the config's `env`, else the catalogue's first. */
function secretFor(providerID: string, configured: string[] | undefined): string {
  if (configured?.[0]) return configured[0]
  const known = catalogProviders().find((p) => p.id === providerID)
  if (!known) throw new UserError(`--provider: no provider named "${providerID}" in the catalogue (wright models lists them)`)
  const name = known.env[0]
  if (!name) throw new UserError(`--provider: ${providerID} takes no API key variable; configure it in wright.json for CI`)
  return name
}

/** The workflow text. Expressions are GitHub's (`${{ }}`), not ours. */
export function workflow(o: { action: string; secret: string; model?: string; mention: string }): string {
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`
  return `# Written by \`wright github install\`. wright answers issues and pull requests whose comment
# mentions ${o.mention}, for the repository's owners, members and collaborators.
name: wright

on:
  issue_comment:
    types: [created]
  pull_request_review_comment:
    types: [created]
  issues:
    types: [opened]
  pull_request:
    types: [opened]
  workflow_dispatch:
    inputs:
      prompt:
        description: What wright should do
        required: true
        type: string

permissions:
  contents: write
  issues: write
  pull-requests: write

jobs:
  wright:
    # Start a runner only for a request that mentions wright (wright checks the author again).
    if: >-
      github.event_name == 'workflow_dispatch' ||
      contains(github.event.comment.body, ${q(o.mention)}) ||
      (github.event_name == 'issues' && contains(github.event.issue.body, ${q(o.mention)})) ||
      (github.event_name == 'pull_request' && contains(github.event.pull_request.body, ${q(o.mention)}))
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
          # wright pushes with the token itself; kept out of .git/config, no command can read it.
          persist-credentials: false
      - uses: ${o.action}
        with:
          github-token: \${{ secrets.GITHUB_TOKEN }}${o.model ? `\n          model: ${o.model}` : ""}
        env:
          ${o.secret}: \${{ secrets.${o.secret} }}
`
}

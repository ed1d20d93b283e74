// How many words name a command, for the "always" pattern: `git commit -m x` is the
// command `git commit`, `npm run build -- --watch` is `npm run build`. Options never
// count; a few tools take a value after a global option (`git -C dir`), which is skipped
// too. Commands not listed are named by their first word.

const BY_ARITY: Record<number, string[]> = {
  2: [
    "bazel brew bun bunx cargo cdk cf cmake composer consul crictl deno docker dotnet eksctl firebase flyctl git go gradle gradlew helm",
    "heroku hugo ip kind kubectl kustomize make mc minikube mise mongosh mvn mysql ng npm npx nvm nx openssl pip pip3 pipenv pipx",
    "pnpm poetry podman psql pulumi pyenv python python3 rake rbenv redis-cli rustup serverless skaffold sls sst swift systemctl",
    "terraform tmux turbo ufw uv vault vercel volta wp yarn",
  ],
  3: [
    "aws az doctl gcloud gh sfdx",
    "bun run|bun x|cargo add|cargo run|consul kv|deno task|docker builder|docker compose|docker container|docker image",
    "docker network|docker volume|eksctl create|git config|git remote|git stash|git submodule|git worktree|ip addr|ip link",
    "ip netns|ip route|kind create|kubectl kustomize|kubectl rollout|mc admin|npm exec|npm init|npm run|npm view|openssl req",
    "openssl x509|pnpm dlx|pnpm exec|pnpm run|podman container|podman image|pulumi stack|terraform workspace|uv pip|uv run",
    "vault auth|vault kv|yarn dlx|yarn run|yarn workspace",
  ],
}

const ARITY = new Map<string, number>()
for (const [arity, lines] of Object.entries(BY_ARITY)) {
  for (const line of lines) {
    const keys = line.includes("|") ? line.split("|") : line.split(" ")
    for (const key of keys) ARITY.set(key.trim(), Number(arity))
  }
}

// Global options that take the next word as their value, per command.
const VALUE_OPTIONS: Record<string, string[]> = {
  git: ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--attr-source", "--super-prefix"],
  npm: ["--prefix", "-w", "--workspace", "--userconfig", "--cache", "--registry"],
  pnpm: ["-C", "--dir", "-F", "--filter", "-w", "--workspace"],
  yarn: ["--cwd"],
  docker: ["-H", "--host", "-c", "--context", "--config", "-l", "--log-level"],
  podman: ["--url", "-c", "--connection", "--root", "--runroot"],
  kubectl: ["-n", "--namespace", "--context", "--kubeconfig", "-s", "--server", "--cluster", "--user"],
  helm: ["-n", "--namespace", "--kube-context", "--kubeconfig"],
  gh: ["-R", "--repo"],
  make: ["-C", "-f", "--file", "--directory", "-I", "-o", "-W"],
  cargo: ["-Z", "--config", "--color"],
  go: ["-C"],
  aws: ["--profile", "--region", "--output", "--endpoint-url"],
}

const MAX_PREFIX = 4

export interface PrefixInfo {
  /** Indexes of the words that name the command, in order. */
  indexes: number[]
  /** True when a word that may name the command is only known at run time. */
  dynamic: boolean
}

/**
 * The naming words of a command. `undefined` marks a word only known at run time; it
 * may be a subcommand, so it is never taken for an option.
 */
export function prefixInfo(words: (string | undefined)[]): PrefixInfo {
  if (words.length === 0) return { indexes: [], dynamic: false }
  if (words[0] === undefined) return { indexes: [0], dynamic: true }
  const valueOptions = VALUE_OPTIONS[words[0]] ?? []
  const candidates = [0]
  for (let i = 1; i < words.length && candidates.length < MAX_PREFIX; i++) {
    const word = words[i]
    if (word === "--") break
    if (word !== undefined && isOption(word)) {
      if (candidates.length === 1 && valueOptions.includes(word)) i++
      continue
    }
    candidates.push(i)
  }
  let arity = 1
  for (let n = candidates.length; n > 0; n--) {
    const key = candidates.slice(0, n).map((i) => words[i])
    if (key.includes(undefined)) continue
    const found = ARITY.get(key.join(" "))
    if (found !== undefined) {
      arity = found
      break
    }
  }
  const indexes = candidates.slice(0, arity)
  return { indexes, dynamic: indexes.some((i) => words[i] === undefined) }
}

function isOption(word: string): boolean {
  return word.length > 1 && (word.startsWith("-") || word.startsWith("+"))
}

/** The words of the command's name by the arity table, options left out. */
export function arityPrefix(tokens: string[]): string[] {
  return prefixInfo(tokens).indexes.map((i) => tokens[i])
}

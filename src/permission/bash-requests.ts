// The requests the bash gate (bash-analyze.ts) asks, built from what its walk found: paths
// outside the project, the repository's own configuration, files read, then the commands
// themselves. Apart from the walk because it is the contract with the permission service
// (the order of the requests, which patterns "always" approves, when an ask is forced) and
// reads no syntax.
import { type Form, unique } from "./bash-syntax"

export interface BashCommand {
  text: string
  name: string
  args: string[]
}

export interface BashRequest {
  permission: "bash" | "external_directory" | "read" | "vcs_config"
  patterns: string[]
  always: string[]
  forceAsk?: boolean
  metadata: Record<string, unknown>
}

/** A simple command the walk found, with the forms it is matched under; `skip`: left out of the patterns (a plain `cd`). */
export interface Found {
  name: string
  tokens: string[]
  forms: Form[]
  skip?: boolean
}

/** What the walk over one command line found. */
export interface Findings {
  commands: Found[]
  /** Why the command line cannot be known before it runs: the bash request is then always asked. */
  reasons: Set<string>
  /** `external_directory` patterns, each with the path that made it. */
  external: Map<string, string>
  /** The repository's configuration files the command line changes. */
  vcs: Set<string>
  /** `read` patterns of the files it reads. */
  reads: Set<string>
  /** The parser could not read all of it: the whole text is matched as written. */
  unreadable: boolean
}

/** The requests for `command`, in the order they are asked. */
export function bashRequests(command: string, found: Findings): BashRequest[] {
  const out: BashRequest[] = []
  if (found.external.size > 0) {
    const patterns = [...found.external.keys()]
    out.push({ permission: "external_directory", patterns, always: patterns, metadata: { command, paths: [...found.external.values()] } })
  }
  if (found.vcs.size > 0) {
    const patterns = [...found.vcs]
    out.push({ permission: "vcs_config", patterns, always: patterns, metadata: { command, files: patterns } })
  }
  if (found.reads.size > 0) {
    const patterns = [...found.reads]
    out.push({ permission: "read", patterns, always: ["*"], metadata: { command, files: patterns } })
  }
  const shown = found.commands.filter((c) => !c.skip)
  const patterns = unique(shown.flatMap((c) => c.forms.map((f) => f.tokens.join(" "))))
  const always = unique(shown.flatMap((c) => c.forms.filter((f) => f.prefixLen > 0).map((f) => `${f.tokens.slice(0, f.prefixLen).join(" ")} *`)))
  const reasons = [...found.reasons]
  const onlyComments = command.split("\n").every((line) => /^\s*(#.*)?$/.test(line))
  // What the parser could not read is shown, and matched against the rules, as written.
  const whole = command.trim()
  if (!patterns.includes(whole) && (found.unreadable || (patterns.length === 0 && (reasons.length > 0 || (found.commands.length === 0 && !onlyComments))))) patterns.push(whole)
  if (patterns.length === 0) return out
  out.push({
    permission: "bash",
    patterns,
    always,
    ...(reasons.length > 0 ? { forceAsk: true } : {}),
    metadata: {
      command,
      commands: shown.map((c): BashCommand => ({ text: c.tokens.join(" "), name: c.name, args: c.tokens.slice(1) })),
      ...(reasons.length > 0 ? { unknown: reasons } : {}),
    },
  })
  return out
}

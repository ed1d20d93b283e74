// Permissions: rulesets and their evaluation (the last matching rule wins, no match asks),
// the ask/reply service that waits on the user, path checks for `external_directory`,
// and the tree-sitter analysis that turns a bash command line into requests. It decides;
// it never runs tools, prompts a user itself, or persists approvals.
export { evaluate, lastMatch, fromConfig, merge, defaults, disabledTools, NAMED_ONLY } from "./rules"
export { namesHost } from "./url"
export { createPermissions, judge, strictest, type AskInput, type Permissions, type Verdict } from "./service"
export { resolveReal, isInside, pathPatterns, externalDirectoryPattern, externalDirectoryAsk, vcsConfigPatterns, type ExternalDirectoryAsk } from "./paths"
export { arityPrefix } from "./arity"
export type { BashCommand, BashRequest } from "./bash-analyze"
export { discardingCommands, type Discard, type DiscardKind } from "./bash-discards"

/**
 * The bash analysis (its syntax walk and command tables, ~90 KB of the bundle) loads with the
 * first bash call, not with every start: `wright run "hi"` never runs a command.
 */
export async function analyzeBash(...args: Parameters<typeof import("./bash-analyze").analyzeBash>): ReturnType<typeof import("./bash-analyze").analyzeBash> {
  return (await import("./bash-analyze")).analyzeBash(...args)
}

/** Starts loading the bash analysis and its parser (chunk + wasm) ahead of the first bash call. Never throws. */
export function warmBashAnalysis(): void {
  import("./bash-analyze")
    .then((m) => m.warmParser())
    .catch(() => {})
}

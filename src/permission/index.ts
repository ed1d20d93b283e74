// Permissions: rulesets and their evaluation (the last matching rule wins, no match asks),
// the ask/reply service that waits on the user, path checks for `external_directory`,
// and the tree-sitter analysis that turns a bash command line into requests. It decides;
// it never runs tools, prompts a user itself, or persists approvals.
export { evaluate, lastMatch, fromConfig, merge, defaults, disabledTools } from "./rules"
export { namesHost } from "./url"
export { createPermissions, judge, type AskInput, type Permissions, type Verdict } from "./service"
export { resolveReal, isInside, pathPatterns, externalDirectoryPattern, externalDirectoryAsk, vcsConfigPatterns, type ExternalDirectoryAsk } from "./paths"
export { analyzeBash, type BashCommand, type BashRequest } from "./bash-analyze"
export { arityPrefix } from "./arity"

// How a hook script written for Claude Code sees wright's tools: the names its matchers use
// (`Bash`, `Edit|Write`, …) and its snake_case input keys (`tool_input.file_path`). Tools
// Claude Code does not have (custom tools, MCP tools) keep their own names.
const NAMES: Record<string, string> = {
  bash: "Bash",
  edit: "Edit",
  write: "Write",
  read: "Read",
  glob: "Glob",
  grep: "Grep",
  list: "LS",
  webfetch: "WebFetch",
  websearch: "WebSearch",
  todowrite: "TodoWrite",
  todoread: "TodoRead",
  task: "Task",
  skill: "Skill",
  question: "AskUserQuestion",
  apply_patch: "ApplyPatch",
  lsp: "LSP",
}

export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = NAMES

export function claudeToolName(tool: string): string {
  return NAMES[tool] ?? tool
}

/** `{ filePath, oldString }` → `{ file_path, old_string }` (top level: what Claude's tools take). */
export function toClaudeInput(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]))
}

/** The reverse, for a hook's `updatedInput`: keys wright's tool has win, others are camelCased. */
export function fromClaudeInput(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]))
}

// The built-in slash commands and their aliases (OpenCode's names where they overlap).

export interface SlashCommand {
  name: string
  aliases?: string[]
  description: string
}

export const COMMANDS: SlashCommand[] = [
  { name: "new", aliases: ["clear"], description: "start a new session" },
  { name: "sessions", aliases: ["resume", "continue"], description: "switch, search or delete sessions" },
  { name: "children", aliases: ["subagents"], description: "move into one of this session's subagent sessions (/parent comes back)" },
  { name: "parent", aliases: ["back"], description: "back to the session that started this subagent session" },
  { name: "models", description: "pick the provider/model" },
  { name: "connect", description: "sign in (GitHub Copilot, ChatGPT) or store a provider's API key (typed hidden), then use its models" },
  { name: "agents", description: "pick the primary agent" },
  { name: "variants", description: "pick the model's variant: how hard it reasons (ctrl+t cycles)" },
  { name: "compact", aliases: ["summarize"], description: "summarize the session to free context" },
  { name: "undo", description: "revert the last message and the files it changed (its text returns to the prompt)" },
  { name: "redo", description: "restore what /undo reverted, files too" },
  { name: "diff", description: "show the files this session changed, with their diffs" },
  { name: "rename", description: "give this session a new title" },
  { name: "fork", description: "a new session from a chosen prompt: the messages before it, its text in the prompt" },
  { name: "timeline", description: "the session's prompts: choose one to undo from there (files too; its text returns)" },
  { name: "copy", description: "copy the last answer to the clipboard (OSC 52)" },
  { name: "mcps", description: "MCP servers: switch one off (or on) for this session" },
  { name: "auto", description: "auto-approve permission asks on/off (not sandbox escapes or plan hand-offs)" },
  { name: "history", description: "print earlier messages of this session" },
  { name: "export", description: "open the session as Markdown in $VISUAL/$EDITOR (written to a file when neither is set)" },
  { name: "editor", description: "write the prompt in $VISUAL/$EDITOR (ctrl+g); what you save is sent" },
  { name: "thinking", description: "show or hide reasoning" },
  { name: "details", description: "show or hide full tool output (ctrl+o)" },
  { name: "trust", description: "trust this folder's config (its MCP servers, rules, …)" },
  { name: "status", description: "plugins, custom tools, command hooks and MCP servers: what loaded and what failed" },
  { name: "themes", description: "preview and pick the colour theme (kept in ~/.config/wright/tui.json)" },
  { name: "help", description: "keys and commands" },
  { name: "heap", description: "write a V8 heap snapshot of the core (the worker) and print its path" },
  { name: "exit", aliases: ["quit", "q"], description: "quit wright" },
]

/** The command a typed name means, by name or alias. */
export function findCommand(name: string): SlashCommand | undefined {
  const n = name.toLowerCase()
  return COMMANDS.find((c) => c.name === n || c.aliases?.includes(n))
}

export function matchCommands(prefix: string): SlashCommand[] {
  const p = prefix.toLowerCase()
  return COMMANDS.filter((c) => c.name.startsWith(p) || c.aliases?.some((a) => a.startsWith(p)))
}

export const HELP = `## Keys
- **enter** send · **shift+enter**, **ctrl+j**, **alt+enter** or a trailing \`\\\` newline
- **↑/↓** prompt history (on the first/last line), **ctrl+p/ctrl+n** too · **tab** / **shift+tab** cycle agents (build/plan)
- home screen: **↑** from the empty prompt moves into the session list: **↑/↓** move, type to search, **enter** open, **ctrl+d** delete (asks first), **esc** back
- **esc** interrupt the running step · **ctrl+c** clear the prompt, quit when empty · **ctrl+d** quit
- while the agent works: **enter** steers (the model reads it before its next step), **ctrl+q** queues (a new turn when it is done); waiting prompts show above the prompt, **↑** on the empty prompt takes the newest back to edit or drop
- **/models**: **ctrl+f** stars a model (favourites, then recents, lead the list)
- **ctrl+g** write the prompt in \`$VISUAL\`/\`$EDITOR\` (sent when saved) · **/diff** and **ctrl+o** on a large output open the pager: **↑↓ pgup/pgdn g G**, **/** search, **n/N**, **q** back
- **ctrl+o** full tool output · **ctrl+t** cycle the model's variants · **ctrl+w** delete word · **ctrl+u** delete to line start
- \`@path\` attach a file · \`@agent\` mention an agent · \`!command\` run a shell command
- a paste of more than 10 lines becomes one \`[Pasted N lines]\` block, expanded when sent
- images: \`@shot.png\`, a pasted path of an image file (a dragged file) or **ctrl+v** (the clipboard, through wl-paste or xclip) attach one as an \`[Image N]\` chip
- **ctrl+x p** the command palette (every command with its key, type to filter) · **ctrl+x** then **n** new, **l** sessions, **m** models, **a** agents, **t** themes, **u** undo, **r** redo, **c** compact, **x** export, **q** quit
- keys and theme are set in \`~/.config/wright/tui.json\` (OpenCode's \`keybinds\` names, e.g. \`"command_list": "ctrl+k"\`, \`"/diff": "<leader>d"\`); custom themes in \`~/.config/wright/themes/*.json\`

## Commands
${COMMANDS.map((c) => `- **/${c.name}**${c.aliases ? ` (${c.aliases.map((a) => `/${a}`).join(", ")})` : ""}: ${c.description}`).join("\n")}`

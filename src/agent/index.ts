// Agents: the built-in ones (build, plan, general, explore and the hidden title, summary and
// compaction), custom agents from config and from Markdown files, and each agent's merged
// permission ruleset. Pure configuration: agents do not run anything themselves.
export { createAgents, markdownAgents, PLAN_DIR, type Agent, type Agents, type AgentsInput } from "./agent"

// Tools: the interface (`defineTool`, the context a tool runs with), the registry, the
// shared truncation policy and the built-in tools. A tool never sees the session, the
// server or storage: what it needs arrives through its context (`ctx.ask`, `ctx.services`).
export * from "./tool"
export { createToolRegistry, runTool, usesApplyPatch, type ToolRegistry } from "./registry"
export { truncateOutput, type TruncateOptions } from "./truncate"
export { webfetch } from "./webfetch"
export { todowrite, todoread } from "./todo"
export { question } from "./question"
export { invalid } from "./invalid"
export { createSkillTool } from "./skill"
export { discoverSkills, type SkillInfo } from "./skill-discovery"
export { bash } from "./bash"
export { shellTools } from "./shell-tools"

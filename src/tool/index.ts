// Tools: the interface (`defineTool`, the context a tool runs with), the registry, the
// shared truncation policy and the built-in tools. A tool never sees the session, the
// server or storage: what it needs arrives through its context (`ctx.ask`, `ctx.services`).
export * from "./tool"
export { createToolRegistry, runTool, usesApplyPatch, type ToolRegistry } from "./registry"
export { truncateOutput, type TruncateOptions } from "./truncate"
export { webfetch } from "./webfetch"
export { configureWebsearch, createWebsearch, type WebsearchSettings } from "./websearch"
export { todowrite, todoread } from "./todo"
export { question } from "./question"
export { invalid } from "./invalid"
export { createSkillTool } from "./skill"
export { discoverSkills, findSkills, loadSkills, skillSources, type SkillInfo, type SkillSource } from "./skill-discovery"
export { bash } from "./bash"
export { shellTools } from "./shell-tools"
import { readTool } from "./read"
import { globTool } from "./glob"
import { grepTool } from "./grep"
import { listTool } from "./list"
import { editTool } from "./edit"
import { writeTool } from "./write"
import { applyPatchTool } from "./apply-patch"
import type { Tool } from "./tool"
export { readTool, globTool, grepTool, listTool, editTool, writeTool, applyPatchTool }
/** The file tools in OpenCode's order (list added); the registry offers apply_patch or edit/write per model. */
export function fileTools(): Tool[] {
  return [readTool, globTool, grepTool, listTool, editTool, writeTool, applyPatchTool]
}
export { ripgrep, ripgrepBinary, BASE_FLAGS as RIPGREP_FLAGS } from "./ripgrep"
export { summarize, type SummaryProject } from "./summary"
/** The helpers a tool defined outside `tool/` (task, StructuredOutput) uses in its `summary()`. */
export * as Summary from "./summary"
export { lspTool } from "./lsp"
export { createFileService, type AfterWrite, type FileService, type FileServiceDeps, type EditorFiles } from "./file-service"
export { createWrittenFiles, type WrittenFiles } from "./written-files"
export { openContained } from "./file-writer"

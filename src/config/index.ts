// Configuration: finds wright.json(c) (or an OpenCode user's opencode.json(c)), applies
// {env:}/{file:} substitutions, parses JSONC, validates against OpenCode's schema and
// merges global → WRIGHT_CONFIG → project → inline → overrides. A project's own config is
// held to what an untrusted folder may do until the user trusts the folder (trust.ts). It reads
// files and writes only the trust record:
// it never writes config back, never installs anything, and knows nothing of providers,
// agents or tools beyond the shape of their config.
export { Config, CommandConfig, CompactionConfig, ExperimentalConfig, FormatterConfig, LspConfig, PluginSpec, ServerConfig } from "./schema"
export { AgentConfig } from "./agent"
export { DEFAULT_MAX_TOOL_SHARE, McpConfig, McpLocalConfig, McpOAuthConfig, McpRemoteConfig, McpSection, mcpServers } from "./mcp"
export { PermissionAction, PermissionConfig, PermissionRule, permissionFromTools } from "./permission"
export { ModelConfig, ProviderConfig, ProviderOptions } from "./provider"
export { SandboxConfig } from "./sandbox"
export { ConfigError } from "./error"
export type { ConfigIssue } from "./issues"
export { mergeConfig, mergeDeep } from "./merge"
export { parseConfigText } from "./parse"
export { findWorktree, xdgPaths, type XdgPaths } from "./paths"
export { loadConfig, type LoadOptions, type LoadedConfig } from "./load"
export {
  describeToken,
  hashProjectConfig,
  projectCode,
  projectConfigFiles,
  listTrustRecords,
  readTrustRecord,
  restrictProject,
  trustFile,
  writeTrustRecord,
  type RestrictedPermissions,
  type Trust,
} from "./trust"
export { redactConfig } from "./redact"

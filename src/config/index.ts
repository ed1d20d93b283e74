// Configuration: finds wright.json(c) (or an OpenCode user's opencode.json(c)), applies
// {env:}/{file:} substitutions, parses JSONC, validates against OpenCode's schema and
// merges global → WRIGHT_CONFIG → project → inline → overrides. It only reads files:
// it never writes config back, never installs anything, and knows nothing of providers,
// agents or tools beyond the shape of their config.
export { Config, CommandConfig, CompactionConfig, ExperimentalConfig, FormatterConfig, LspConfig, PluginSpec, ServerConfig } from "./schema"
export { AgentConfig } from "./agent"
export { McpConfig, McpLocalConfig, McpOAuthConfig, McpRemoteConfig } from "./mcp"
export { PermissionAction, PermissionConfig, PermissionRule, permissionFromTools } from "./permission"
export { ModelConfig, ProviderConfig, ProviderOptions } from "./provider"
export { ConfigError } from "./error"
export type { ConfigIssue } from "./issues"
export { mergeConfig, mergeDeep } from "./merge"
export { parseConfigText } from "./parse"
export { findWorktree, xdgPaths, type XdgPaths } from "./paths"
export { loadConfig, type LoadOptions, type LoadedConfig } from "./load"

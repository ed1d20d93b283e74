// MCP: clients for the servers in config `mcp`, local (stdio) or remote (StreamableHTTP, then
// SSE), and their tools adapted into wright tools named `server_tool`. It owns the connections
// and the server processes; it never runs the loop, never asks permission itself (the tools
// ask through their context) and never reaches the bus: it reports changes through callbacks.
export { createMcp, DEFAULT_MCP_TIMEOUT, type Mcp, type McpOptions, type McpPrompt } from "./manager"
export { CALLBACK_PATH, DEFAULT_CALLBACK_PORT, listenForCallback, McpAuthProvider, mcpAuthFile, readMcpAuth, writeMcpAuth, type StoredMcpAuth } from "./oauth"
export { mcpTool, mcpToolId, sanitize, toToolResult } from "./convert"
export type { McpServerConfig, TransportFactory } from "./connect"
export { resourceContent, resourceTools, RESOURCE_TOOL_IDS, type McpResource } from "./resources"
export { deferMcpTools, definitionTokens, loadedTools, searchTools, TOOL_SEARCH_ID } from "./deferred"

// MCP: clients for the servers in config `mcp`, local (stdio) or remote (StreamableHTTP, then
// SSE), and their tools adapted into wright tools named `server_tool`. It owns the connections
// and the server processes; it never runs the loop, never asks permission itself (the tools
// ask through their context) and never reaches the bus: it reports changes through callbacks.
export { createMcp, DEFAULT_MCP_TIMEOUT, type Mcp, type McpOptions } from "./manager"
export { mcpTool, mcpToolId, sanitize, toToolResult } from "./convert"
export type { McpServerConfig, TransportFactory } from "./connect"

// The import directions of shared/ARCHITECTURE.md, checked on every `npm test`.
// Each src folder may import only the folders listed for it, and only through their index.ts.
const allowed = {
  util: [],
  protocol: ["util"],
  config: ["protocol", "util"],
  storage: ["protocol", "util"],
  bus: ["protocol", "util"],
  process: ["config", "protocol", "util"],
  llm: ["config", "protocol", "util"],
  permission: ["bus", "config", "protocol", "util"],
  // tool names the spawner's types; the spawner itself reaches it only through ToolServices (rule below).
  tool: ["permission", "process", "protocol", "util"],
  mcp: ["tool", "process", "config", "protocol", "util"],
  lsp: ["process", "config", "protocol", "util"],
  snapshot: ["process", "config", "protocol", "util"],
  agent: ["config", "permission", "protocol", "util"],
  plugin: ["tool", "process", "sdk", "config", "protocol", "util"],
  session: ["util", "protocol", "config", "storage", "bus", "process", "llm", "permission", "tool", "mcp", "lsp", "snapshot", "plugin", "agent"],
  server: ["util", "protocol", "config", "storage", "bus", "process", "llm", "permission", "tool", "mcp", "lsp", "snapshot", "plugin", "agent", "session"],
  sdk: ["protocol", "util"],
  tui: ["sdk", "protocol", "util"],
  acp: ["sdk", "protocol", "util"],
  // The browser UI: the API only through the sdk (no node modules, no core).
  web: ["sdk", "protocol"],
  cli: null, // the composition root may import everything
}
const folders = Object.keys(allowed)

const forbidden = []
for (const [from, ok] of Object.entries(allowed)) {
  if (ok === null) continue
  const banned = folders.filter((f) => f !== from && !ok.includes(f))
  if (banned.length === 0) continue
  forbidden.push({
    name: `layer-${from}`,
    comment: `src/${from} may import only: ${ok.join(", ") || "nothing in src"} (shared/ARCHITECTURE.md)`,
    severity: "error",
    from: { path: `^src/${from}/` },
    to: { path: `^src/(${banned.join("|")})/` },
  })
}
forbidden.push({
  name: "tool-process-types-only",
  comment: "tools start processes only through ctx.services.exec; they may import the spawner's types, nothing else",
  severity: "error",
  from: { path: "^src/tool/" },
  to: { path: "^src/process/", dependencyTypesNot: ["type-only"] },
})
forbidden.push({
  name: "one-door",
  comment: "every child process starts through the spawner (src/process): it scrubs the environment, sandboxes project work and kills the whole group",
  severity: "error",
  from: { path: "^src/", pathNot: "^src/process/" },
  to: { dependencyTypes: ["core"], path: "^(node:)?child_process$" },
})
forbidden.push({
  name: "through-index",
  comment: "another folder's internals are private: import its index.ts",
  severity: "error",
  from: { path: "^src/([^/]+)/" },
  to: { path: "^src/([^/]+)/.+", pathNot: ["^src/$1/", "^src/[^/]+/index\\.tsx?$", "^src/globals\\.d\\.ts$"] },
})
forbidden.push({
  name: "no-circular",
  severity: "error",
  from: { path: "^src/" },
  to: { circular: true },
})

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.txt$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".json"] },
  },
}

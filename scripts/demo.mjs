// The offline demo: `npm run demo`. No API key and no network: the model is wright's own
// scripted test server (dist/llm-server.mjs), which plays a model fixing a failing test in a
// small throwaway project. Everything else is the real wright: the CLI, the agent loop, the
// tools, permissions and the database (kept in a temporary home, not yours).
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const { startLLMServer } = await import(path.join(root, "dist/llm-server.mjs"))

const home = mkdtempSync(path.join(os.tmpdir(), "wright-demo-"))
const project = path.join(home, "calculator")
mkdirSync(path.join(project, "src"), { recursive: true })
writeFileSync(
  path.join(project, "src/math.js"),
  `export function add(a, b) {\n  return a - b\n}\n\nexport function mul(a, b) {\n  return a * b\n}\n`,
)
writeFileSync(
  path.join(project, "test.js"),
  `import assert from "node:assert/strict"\nimport { add, mul } from "./src/math.js"\n\nassert.equal(add(2, 3), 5)\nassert.equal(mul(2, 3), 6)\nconsole.log("all tests passed")\n`,
)
writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "calculator", type: "module", scripts: { test: "node test.js" } }, null, 2))

// The scripted "model": it looks at how many tool results the conversation already holds
// and answers with the next step of a plausible fix.
const steps = [
  { text: "I'll run the tests first to see what fails.", toolCalls: [{ name: "bash", input: { command: "npm test --silent", description: "Run the test suite" } }] },
  { text: "`add(2, 3)` returned -1, so `add` subtracts. Let me read it.", toolCalls: [{ name: "read", input: { filePath: "src/math.js" } }] },
  { text: "Found it: `add` uses `-`. Fixing.", toolCalls: [{ name: "edit", input: { filePath: "src/math.js", oldString: "  return a - b", newString: "  return a + b" } }] },
  { toolCalls: [{ name: "bash", input: { command: "npm test --silent", description: "Run the tests again" } }] },
  {
    text:
      "Fixed the failing test.\n\n- `src/math.js`: `add` returned `a - b`; it now returns `a + b`.\n- Verified with `npm test`: all tests pass.\n",
  },
]
function toolResults(body) {
  if (Array.isArray(body?.messages)) return body.messages.filter((m) => m.role === "tool").length
  return 0
}
const llm = await startLLMServer({
  strict: false,
  fallback: (req) => ({ ...steps[Math.min(toolResults(req.body), steps.length - 1)], delayMs: 15 }),
  side: () => ({ text: "Fix the failing add test" }),
})

// The scripted model is the demo user's own provider, in their global config, as a real key
// would be: a provider only the project defines needs the folder trusted first.
mkdirSync(path.join(home, "config", "wright"), { recursive: true })
writeFileSync(
  path.join(home, "config", "wright", "wright.json"),
  JSON.stringify(
    {
      model: "demo/scripted-model",
      provider: {
        demo: {
          name: "wright demo (scripted, offline)",
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: `${llm.url}/v1`, apiKey: "demo" },
          models: { "scripted-model": { name: "scripted demo model", limit: { context: 100000, output: 4096 } } },
        },
      },
    },
    null,
    2,
  ),
)

const dim = (s) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s)
console.log(dim("─".repeat(72)))
console.log("wright offline demo — the model is wright's scripted test server, not a real LLM.")
console.log(dim(`project: ${project}`))
console.log(dim('$ wright run "npm test fails, fix it"'))
console.log(dim("─".repeat(72)))

const env = {
  ...process.env,
  XDG_CONFIG_HOME: path.join(home, "config"),
  XDG_DATA_HOME: path.join(home, "data"),
  XDG_CACHE_HOME: path.join(home, "cache"),
  XDG_STATE_HOME: path.join(home, "state"),
  // Offline: no language server is fetched from npm for the demo's one JavaScript edit.
  WRIGHT_DISABLE_LSP_DOWNLOAD: "1",
}
const child = spawn(process.execPath, [path.join(root, "bin/wright.cjs"), "run", "npm test fails, fix it"], { cwd: project, env, stdio: "inherit" })
const code = await new Promise((resolve) => child.on("exit", (c) => resolve(c ?? 1)))
await llm.close()

console.log(dim("─".repeat(72)))
console.log(`src/math.js now:\n${readFileSync(path.join(project, "src/math.js"), "utf8")}`)
console.log(dim(`The session is saved in ${path.join(home, "data/wright/wright.db")}.`))
console.log("To use a real model, see README.md: set an API key (e.g. ANTHROPIC_API_KEY) and run `wright run \"…\"` in your project.")
process.exit(code)

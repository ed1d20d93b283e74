// `wright run -c` on a long session whose old tool outputs get pruned after the run: the pruned
// calls are history, so the output shows only this run's answer.
import { expect, test } from "vitest"
import { seedLongSession } from "../../bench/session/long"
import { text } from "../lib/llm-server"
import { providerConfig, sandbox, useLLMServer, wright, writeConfig } from "../lib/e2e"
import Database from "better-sqlite3"

const server = useLLMServer()

test("long session - run -c prints only this run, not the old tool calls that pruning clears", async () => {
  const box = sandbox()
  writeConfig(box.project, providerConfig(server, "openai-chat"))
  // 300 messages: 100 tool steps of ~6 KB, well past the 40K tokens pruning keeps.
  seedLongSession(box, 300)
  server.script(text("Done with that."))
  const r = await wright(["run", "-c", "one more"], { cwd: box.project, env: box.env, timeoutMs: 120_000 })
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("Done with that.")
  expect(r.stderr).not.toContain("✓")
  // Pruning did run: old outputs are cleared in the database.
  const db = new Database(box.dbPath, { readonly: true })
  const compacted = db.prepare("SELECT count(*) AS n FROM part WHERE json_extract(data, '$.state.time.compacted') IS NOT NULL").get() as { n: number }
  db.close()
  expect(compacted.n).toBeGreaterThan(50)
}, 180_000)

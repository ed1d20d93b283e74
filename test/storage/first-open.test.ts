// Two wright processes that start at the same moment on a database that does not exist yet
// (two `serve` instances over one WRIGHT_DB, a TUI and a `run` on a fresh machine) both find
// schema version 0; whichever migrates second must see the other's work, not create the
// tables again ("table session already exists"). Real processes, one real file.
import { spawn } from "node:child_process"
import path from "node:path"
import { expect, test } from "vitest"
import { openDatabase } from "../../src/storage"
import { LATEST_VERSION } from "../../src/storage/migrations"
import { tempDir } from "../lib/tool-context"

const ROOT = path.resolve(import.meta.dirname, "../..")

/** A process that waits for `go` on stdin, then opens `file` and reports its schema version or its error. */
function opener(file: string) {
  const code = `
    import { openDatabase } from ${JSON.stringify(path.join(ROOT, "src/storage/index.ts"))}
    process.stdin.once("data", () => {
      try {
        const db = openDatabase(${JSON.stringify(file)})
        process.stdout.write("ok " + db.pragma("user_version", { simple: true }))
        db.close()
      } catch (e) {
        process.stdout.write("error " + e.message)
      }
      process.exit(0)
    })
    process.stdout.write("ready\\n")
  `
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] })
  let out = ""
  const ready = new Promise<void>((resolve) => child.stdout.on("data", (d: Buffer) => ((out += d.toString()), out.includes("ready\n") && resolve())))
  const done = new Promise<string>((resolve) => child.on("close", () => resolve(out.replace("ready\n", ""))))
  return { child, ready, done }
}

test("first open - processes opening a new database at the same moment all migrate it without error", async () => {
  for (let round = 0; round < 4; round++) {
    const file = path.join(tempDir("wright-first-open-"), "wright.db")
    const openers = Array.from({ length: 8 }, () => opener(file))
    await Promise.all(openers.map((o) => o.ready))
    for (const o of openers) o.child.stdin.write("go\n")
    const results = await Promise.all(openers.map((o) => o.done))
    expect(results, `round ${round}`).toEqual(openers.map(() => `ok ${LATEST_VERSION}`))
    // One set of tables, at the latest version.
    const db = openDatabase(file)
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_VERSION)
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'session'").get()).toEqual({ n: 1 })
    db.close()
  }
}, 120_000)

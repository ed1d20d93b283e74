import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { watchConfig } from "../../src/cli/tui/config-watch"
import { tempDir } from "../lib/tool-context"

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms))

test("config watch - writing the plan agent's plan file (.wright/plans) reloads nothing; a config file under .wright still does", async () => {
  const home = tempDir("wright-watch-")
  const project = path.join(home, "project")
  mkdirSync(path.join(project, ".git"), { recursive: true })
  mkdirSync(path.join(project, ".wright", "plans"), { recursive: true })
  const changes: string[][] = []
  const stop = watchConfig({ directory: project, env: {}, home, debounceMs: 50, onChange: (files) => changes.push(files) })
  try {
    writeFileSync(path.join(project, ".wright", "plans", "ses_1.md"), "# Plan\n")
    await settle(400)
    writeFileSync(path.join(project, ".wright", "plans", "ses_1.md"), "# Plan, refined\n")
    await settle(400)
    expect(changes).toEqual([])
    writeFileSync(path.join(project, ".wright", "wright.json"), "{}")
    await settle(400)
    expect(changes).toEqual([[path.join(project, ".wright", "wright.json")]])
  } finally {
    stop()
  }
})

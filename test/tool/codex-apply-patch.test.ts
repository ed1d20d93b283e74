// Codex CLI's own apply_patch scenarios (openai/codex, codex-rs/apply-patch/tests/fixtures/
// scenarios, Apache-2.0), run against wright's apply_patch the way Codex's runner does: copy
// input/ to a fresh directory, apply patch.txt there whatever the outcome, and compare the
// whole tree, files and directories, with expected/. The scenarios are read from
// ../shared/conformance/codex-apply-patch beside the repository (see its SOURCE.md) and are
// never copied into it; without them the suite is skipped with the reason printed.
// One deliberate difference: wright's apply_patch is all-or-nothing, so where Codex keeps the
// part that succeeded before a failure (015), wright must change nothing and say it failed.
import { cpSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { applyPatchTool, runTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

const ROOT = path.resolve(import.meta.dirname, "../..")
const RELATIVE = "../shared/conformance/codex-apply-patch"

/** Beside the repository; in a linked git worktree, beside its main worktree too. */
function scenariosDir(): string | undefined {
  const roots = [ROOT]
  const dotGit = path.join(ROOT, ".git")
  if (existsSync(dotGit) && statSync(dotGit).isFile()) {
    const gitdir = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim()
    // <main>/.git/worktrees/<name>
    if (gitdir) roots.push(path.dirname(path.dirname(path.dirname(path.resolve(ROOT, gitdir)))))
  }
  return roots.map((r) => path.resolve(r, RELATIVE, "scenarios")).find((d) => existsSync(d))
}

/** Every directory (as "dir/") and file (with its bytes as text) under `root`, by relative path. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  if (!existsSync(root)) return out
  for (const rel of readdirSync(root, { recursive: true }) as string[]) {
    const abs = path.join(root, rel)
    const key = rel.split(path.sep).join("/")
    if (statSync(abs).isDirectory()) out[`${key}/`] = ""
    else out[key] = readFileSync(abs, "latin1")
  }
  return out
}

async function applyScenario(dir: string): Promise<{ project: string; error?: string }> {
  const project = tempDir("wright-codex-patch-")
  if (existsSync(path.join(dir, "input"))) cpSync(path.join(dir, "input"), project, { recursive: true })
  const patchText = readFileSync(path.join(dir, "patch.txt"), "utf8")
  const error = await runTool(applyPatchTool, { patchText }, toolContext({ directory: project })).then(
    () => undefined,
    (e: Error) => e.message,
  )
  return { project, error }
}

const scenarios = scenariosDir()
if (!scenarios) console.log(`codex apply_patch scenarios skipped: ${path.resolve(ROOT, RELATIVE)} is absent (it holds openai/codex's codex-rs/apply-patch/tests/fixtures/scenarios as scenarios/)`)
const names = scenarios ? readdirSync(scenarios).filter((n) => statSync(path.join(scenarios, n)).isDirectory()).sort() : []
const ALL_OR_NOTHING = "015_failure_after_partial_success_leaves_changes"

describe.skipIf(!scenarios)("codex apply_patch scenarios", () => {
  test("codex apply_patch - the scenarios are all there", () => {
    expect(names.length).toBeGreaterThanOrEqual(23)
  })

  test.each(names.filter((n) => n !== ALL_OR_NOTHING))("codex apply_patch - %s ends with the tree Codex ends with", async (name) => {
    const dir = path.join(scenarios!, name)
    const { project, error } = await applyScenario(dir)
    // Codex's runner ignores the exit status: the tree is the verdict (the error is shown when it differs).
    expect(tree(project), error && `apply_patch failed: ${error}`).toEqual(tree(path.join(dir, "expected")))
    // Beyond Codex's runner: a patch these scenarios reject is reported as failed, never a silent no-op.
    if (/rejects|fails|requires/.test(name)) expect(error).toMatch(/^(patch rejected|apply_patch verification failed): /)
    else expect(error).toBeUndefined()
  })

  test(`codex apply_patch - ${ALL_OR_NOTHING}: wright changes nothing where Codex keeps the part before the failure`, async () => {
    const dir = path.join(scenarios!, ALL_OR_NOTHING)
    const { project, error } = await applyScenario(dir)
    expect(error).toMatch(/missing\.txt/)
    expect(tree(project)).toEqual(tree(path.join(dir, "input")))
    // What Codex leaves, for the record: the added file, which wright does not write.
    expect(Object.keys(tree(path.join(dir, "expected")))).toEqual(["created.txt"])
  })
})

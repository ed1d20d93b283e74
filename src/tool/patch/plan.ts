// Verifies a parsed patch against the disk without writing anything: every path is resolved,
// every file read, every hunk applied in memory, in patch order (so "delete a, then move b to
// a" or two sections on one file work). Any problem rejects the whole patch.

import * as fs from "node:fs/promises"
import * as path from "node:path"
import { applyChunks } from "./apply"
import type { PatchOp, PlannedChange } from "./types"

function fail(reason: string): Error {
  return new Error(`apply_patch verification failed: ${reason}`)
}

async function readText(abs: string, shown: string): Promise<string | null> {
  let bytes: Buffer
  try {
    bytes = await fs.readFile(abs)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") return null
    if (code === "EISDIR") throw fail(`${shown} is a directory, not a file.`)
    throw fail(`cannot read ${shown}: ${(e as Error).message}`)
  }
  const text = bytes.toString("utf8")
  if (text.includes("\u0000") || !Buffer.from(text, "utf8").equals(bytes)) {
    throw fail(`${shown} is not a UTF-8 text file; apply_patch edits text files only.`)
  }
  return text
}

/**
 * Resolves paths against `cwd`, reads files, applies every hunk in memory; throws
 * Error("apply_patch verification failed: …") naming the file and hunk if anything does not apply.
 * Nothing is written.
 */
export async function planPatch(ops: PatchOp[], cwd: string): Promise<PlannedChange[]> {
  const state = new Map<string, string | null>()
  const current = async (abs: string, shown: string) => (state.has(abs) ? state.get(abs)! : readText(abs, shown))
  const plan: PlannedChange[] = []

  for (const op of ops) {
    const abs = path.resolve(cwd, op.path)
    const before = await current(abs, op.path)
    if (op.type === "add") {
      state.set(abs, op.content)
      plan.push({ type: before === null ? "add" : "update", path: abs, before, after: op.content })
      continue
    }
    if (before === null) {
      const verb = op.type === "delete" ? "delete" : "update"
      const tip = op.type === "delete" ? "Remove this section." : "Use \"*** Add File\" to create it, or check the path."
      throw fail(`cannot ${verb} ${op.path}: the file does not exist. ${tip}`)
    }
    if (op.type === "delete") {
      state.set(abs, null)
      plan.push({ type: "delete", path: abs, before, after: null })
      continue
    }
    const after = op.chunks.length ? applyChunks(before, op.chunks, op.path) : before
    const dest = op.moveTo === undefined ? abs : path.resolve(cwd, op.moveTo)
    if (dest === abs) {
      state.set(abs, after)
      plan.push({ type: "update", path: abs, before, after })
      continue
    }
    // A file already at the destination is overwritten, as Add File overwrites and as Codex
    // and OpenCode move; reading it here also refuses a directory there.
    const replaced = await current(dest, op.moveTo!)
    state.set(abs, null)
    state.set(dest, after)
    plan.push({ type: "move", path: abs, moveTo: dest, before, after, replaced })
  }
  return plan
}

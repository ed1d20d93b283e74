// Writes a verified plan all-or-nothing. First every new file body goes to a temp file next to
// its target (nothing visible changes); then each target is swapped in by rename, the old file
// kept aside as a backup; if any step fails, every swap already done is undone and the backups
// restored. A file that changed on disk since the plan was made stops the commit before any write.
// Every temp file, rename and restore goes through the target's directory as file-writer.ts
// opened it (checked inside the roots, no links followed), never through a path.

import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import { type ContainedDir, openContained, writeTemp } from "../file-writer"
import type { PlannedChange } from "./types"

interface Target {
  /** Path as planned. */
  planned: string
  final: string | null
  /** Source of the file mode to keep (the moved file's source for a move). */
  modeFrom: string
  /** The target's directory, opened and checked inside the roots (file-writer.ts): every write goes through it. */
  dir?: ContainedDir
  temp?: string
  backup?: string
  swapped?: boolean
}

async function readOrNull(p: string): Promise<string | null> {
  try {
    return await fs.readFile(p, "utf8")
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null
    throw e
  }
}

function aside(name: string): string {
  return `.${name}.wright-bak-${process.pid}-${randomBytes(4).toString("hex")}`
}

function targetsOf(plan: PlannedChange[]): { targets: Map<string, Target>; expected: Map<string, string | null> } {
  const targets = new Map<string, Target>()
  const expected = new Map<string, string | null>()
  const touch = (p: string, was: string | null) => {
    if (!expected.has(p)) expected.set(p, was)
  }
  const set = (p: string, final: string | null, modeFrom = p) => {
    const prev = targets.get(p)
    targets.set(p, { planned: p, final, modeFrom: prev?.modeFrom ?? modeFrom })
  }
  for (const c of plan) {
    touch(c.path, c.before)
    if (c.type === "move" && c.moveTo) {
      touch(c.moveTo, c.replaced ?? null)
      set(c.path, null)
      set(c.moveTo, c.after, targets.get(c.path)?.modeFrom ?? c.path)
    } else set(c.path, c.after)
  }
  return { targets, expected }
}

/** The swap step's file operation, injectable so a test can make one rename fail mid-commit. */
export interface CommitIo {
  rename(from: string, to: string): Promise<void>
}

/**
 * Writes a verified plan atomically: temp files + rename; if any step fails, restores every file
 * already touched. Creates parent dirs for adds/moves. Preserves each updated file's BOM and line
 * endings (they are already in the planned text). Every file must lie in one of `roots` when
 * its directory is opened for the commit; a path that leaves them by then writes nothing.
 * Returns every path it wrote, moved or deleted, as planned. The tools reach it only through
 * the file service (`ToolServices.files.commit`).
 */
export async function commitPatch(plan: PlannedChange[], io: CommitIo = { rename: fs.rename }, roots: string[] = ["/"]): Promise<string[]> {
  const { targets, expected } = targetsOf(plan)
  for (const [p, was] of expected) {
    if ((await readOrNull(p)) !== was) {
      throw new Error(`apply_patch failed: ${p} changed on disk after the patch was checked; nothing was written. Read the file again and resend the patch.`)
    }
  }
  const list = [...targets.values()]
  const createdDirs: string[] = []
  try {
    try {
      for (const t of list) {
        t.dir = await openContained(roots, t.planned)
        createdDirs.push(...t.dir.created)
      }
    } catch (e) {
      await removeDirs(createdDirs)
      throw e
    }
    try {
      for (const t of list) {
        if (t.final === null) continue
        const mode = await fs.stat(t.modeFrom).then((s) => s.mode & 0o7777, () => undefined)
        t.temp = await writeTemp(t.dir!, t.final, mode)
      }
      for (const t of list) {
        const dir = t.dir!
        if ((await readOrNull(dir.at(dir.name))) !== null) {
          t.backup = aside(dir.name)
          await io.rename(dir.at(dir.name), dir.at(t.backup))
        }
        if (t.temp) {
          await io.rename(dir.at(t.temp), dir.at(dir.name))
          t.temp = undefined
        }
        t.swapped = true
      }
    } catch (e) {
      await rollback(list, createdDirs)
      throw new Error(`apply_patch failed while writing, and every file was restored: ${(e as Error).message}`)
    }
    for (const t of list) if (t.backup) await fs.rm(t.dir!.at(t.backup), { force: true })
    return list.map((t) => t.planned)
  } finally {
    for (const t of list) await t.dir?.close()
  }
}

async function rollback(list: Target[], createdDirs: string[]): Promise<void> {
  for (const t of [...list].reverse()) {
    const dir = t.dir!
    if (t.temp) await fs.rm(dir.at(t.temp), { force: true }).catch(() => {})
    if (t.swapped || t.backup) {
      if (t.swapped && t.final !== null) await fs.rm(dir.at(dir.name), { force: true }).catch(() => {})
      if (t.backup) await fs.rename(dir.at(t.backup), dir.at(dir.name)).catch(() => {})
    }
  }
  await removeDirs(createdDirs)
}

/** Removes directories the commit created, deepest first (they are empty again by then). */
async function removeDirs(dirs: string[]): Promise<void> {
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) await fs.rmdir(d).catch(() => {})
}

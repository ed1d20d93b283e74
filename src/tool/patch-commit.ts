// Writes a verified plan all-or-nothing. First every new file body goes to a temp file next to
// its target (nothing visible changes); then each target is swapped in by rename, the old file
// kept aside as a backup; if any step fails, every swap already done is undone and the backups
// restored. A file that changed on disk since the plan was made stops the commit before any write.

import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { PlannedChange } from "./patch-types"

interface Target {
  /** Path as planned. */
  planned: string
  /** Where the bytes live (symlinks followed for existing files). */
  real: string
  final: string | null
  /** Source of the file mode to keep (the moved file's source for a move). */
  modeFrom: string
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

async function realOrSelf(p: string): Promise<string> {
  try {
    return await fs.realpath(p)
  } catch {
    return p
  }
}

function sibling(file: string, tag: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.wright-${tag}-${process.pid}-${randomBytes(4).toString("hex")}`)
}

/** Creates missing parent directories; returns the ones it created, deepest first. */
async function makeParents(dir: string): Promise<string[]> {
  const missing: string[] = []
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      await fs.stat(d)
      break
    } catch {
      missing.push(d)
      if (path.dirname(d) === d) break
    }
  }
  await fs.mkdir(dir, { recursive: true })
  return missing
}

function targetsOf(plan: PlannedChange[]): { targets: Map<string, Target>; expected: Map<string, string | null> } {
  const targets = new Map<string, Target>()
  const expected = new Map<string, string | null>()
  const touch = (p: string, was: string | null) => {
    if (!expected.has(p)) expected.set(p, was)
  }
  const set = (p: string, final: string | null, modeFrom = p) => {
    const prev = targets.get(p)
    targets.set(p, { planned: p, real: p, final, modeFrom: prev?.modeFrom ?? modeFrom })
  }
  for (const c of plan) {
    touch(c.path, c.before)
    if (c.type === "move" && c.moveTo) {
      touch(c.moveTo, null)
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
 * endings (they are already in the planned text).
 */
export async function commitPatch(plan: PlannedChange[], io: CommitIo = { rename: fs.rename }): Promise<void> {
  const { targets, expected } = targetsOf(plan)
  for (const [p, was] of expected) {
    if ((await readOrNull(p)) !== was) {
      throw new Error(`apply_patch failed: ${p} changed on disk after the patch was checked; nothing was written. Read the file again and resend the patch.`)
    }
  }
  const list = [...targets.values()]
  for (const t of list) t.real = await realOrSelf(t.planned)
  const createdDirs: string[] = []

  try {
    for (const t of list) {
      if (t.final === null) continue
      createdDirs.push(...(await makeParents(path.dirname(t.real))))
      t.temp = sibling(t.real, "tmp")
      await fs.writeFile(t.temp, t.final, { flag: "wx" })
      const mode = await fs.stat(t.modeFrom).then((s) => s.mode, () => undefined)
      if (mode !== undefined) await fs.chmod(t.temp, mode & 0o7777)
    }
    for (const t of list) {
      if ((await readOrNull(t.real)) !== null) {
        t.backup = sibling(t.real, "bak")
        await io.rename(t.real, t.backup)
      }
      if (t.temp) {
        await io.rename(t.temp, t.real)
        t.temp = undefined
      }
      t.swapped = true
    }
  } catch (e) {
    await rollback(list, createdDirs)
    throw new Error(`apply_patch failed while writing, and every file was restored: ${(e as Error).message}`)
  }
  for (const t of list) if (t.backup) await fs.rm(t.backup, { force: true })
}

async function rollback(list: Target[], createdDirs: string[]): Promise<void> {
  for (const t of [...list].reverse()) {
    if (t.temp) await fs.rm(t.temp, { force: true }).catch(() => {})
    if (t.swapped || t.backup) {
      if (t.swapped && t.final !== null) await fs.rm(t.real, { force: true }).catch(() => {})
      if (t.backup) await fs.rename(t.backup, t.real).catch(() => {})
    }
  }
  for (const d of createdDirs) await fs.rmdir(d).catch(() => {})
}

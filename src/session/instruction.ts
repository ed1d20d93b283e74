import { existsSync, readFileSync, realpathSync } from "node:fs"
import path from "node:path"
import { glob } from "tinyglobby"
import { expandHome, realOrSelf } from "../util"

export interface Instruction {
  path: string
  content: string
}

export interface InstructionInput {
  directory: string
  worktree: string
  /** wright's global config dir (`~/.config/wright`). */
  globalConfigDir: string
  home: string
  /** The `instructions` config list: paths, globs or http(s) URLs. */
  extra?: string[]
  fetch?: typeof fetch
}

const PROJECT_NAMES = ["AGENTS.md", "CLAUDE.md", "CONTEXT.md"]

/** Directories from `directory` up to `worktree` (inclusive), nearest first. */
export function upTo(directory: string, worktree: string): string[] {
  const out: string[] = []
  let dir = path.resolve(directory)
  const stop = path.resolve(worktree)
  while (true) {
    out.push(dir)
    if (dir === stop) break
    const parent = path.dirname(dir)
    if (parent === dir || !dir.startsWith(stop)) break
    dir = parent
  }
  return out
}

/**
 * Whether a file the project names stays inside the project once its links are resolved. A
 * repository's `AGENTS.md -> ~/.aws/credentials` (or a glob match that links out) would put
 * the user's file in the prompt; a link to another file of the project is fine.
 */
export function insideProject(worktree: string): (file: string) => boolean {
  let root: string | undefined
  return (file) => {
    root ??= realOrSelf(worktree)
    let real: string
    try {
      real = realpathSync(file)
    } catch {
      return false
    }
    const rel = path.relative(root, real)
    return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
  }
}


/**
 * The instruction files sent with the system prompt: the global AGENTS.md, then the first of
 * AGENTS.md / CLAUDE.md / CONTEXT.md that exists anywhere between the directory and the git
 * root (every level that has it, outermost first), then the `instructions` config entries.
 * What the project names (its AGENTS.md, relative entries and glob matches) never follows a
 * link out of it; the user's own files and absolute entries are read where they are.
 */
export async function loadInstructions(input: InstructionInput): Promise<Instruction[]> {
  const found: string[] = []
  const globalFile = [path.join(input.globalConfigDir, "AGENTS.md"), path.join(input.home, ".claude", "CLAUDE.md")].find((f) =>
    existsSync(f),
  )
  if (globalFile) found.push(globalFile)

  const inside = insideProject(input.worktree)
  const levels = upTo(input.directory, input.worktree)
  for (const name of PROJECT_NAMES) {
    const matches = levels.map((d) => path.join(d, name)).filter((f) => existsSync(f))
    if (matches.length) {
      found.push(...matches.reverse().filter(inside))
      break
    }
  }

  const urls: string[] = []
  for (const entry of input.extra ?? []) {
    if (/^https?:\/\//.test(entry)) urls.push(entry)
    else found.push(...(await expandEntry(entry, input, levels, inside)))
  }

  const seen = new Set<string>()
  const out: Instruction[] = []
  for (const file of found) {
    const real = path.resolve(file)
    if (seen.has(real)) continue
    seen.add(real)
    try {
      out.push({ path: real, content: readFileSync(real, "utf8") })
    } catch {
      // A file that vanished between glob and read is simply skipped.
    }
  }
  const fetched = await Promise.all(urls.map((u) => fetchInstruction(u, input.fetch ?? fetch)))
  for (const f of fetched) if (f) out.push(f)
  return out
}

async function expandEntry(entry: string, input: InstructionInput, levels: string[], inside: (file: string) => boolean): Promise<string[]> {
  const expanded = expandHome(entry, input.home)
  if (path.isAbsolute(expanded)) {
    if (!/[*?[{]/.test(expanded)) return existsSync(expanded) ? [expanded] : []
    return (await glob(expanded, { absolute: true, dot: true })).sort()
  }
  // Relative entries are searched from the directory up to the git root.
  const out: string[] = []
  for (const dir of levels) {
    const matches = await glob(expanded, { cwd: dir, absolute: true, dot: true, ignore: ["**/node_modules/**", "**/.git/**"] })
    out.push(...matches.filter(inside).sort())
  }
  return out
}

async function fetchInstruction(url: string, doFetch: typeof fetch): Promise<Instruction | undefined> {
  try {
    const res = await doFetch(url, { signal: AbortSignal.timeout(5000) })
    if (!res.ok) return undefined
    return { path: url, content: await res.text() }
  } catch {
    return undefined
  }
}

export function formatInstruction(i: Instruction): string {
  return `Instructions from: ${i.path}\n${i.content}`
}


/**
 * Which instruction files the model has seen, so the read tool attaches each one at most once:
 * those in the system prompt, and per message those the read tool already attached.
 */
export function createInstructionClaims(opts: { worktree: string }) {
  // The read tool finds these between the worktree and the file it read: project files, held inside it.
  const inside = insideProject(opts.worktree)
  const inSystem = new Set<string>()
  const claimed = new Map<string, Set<string>>()
  return {
    /** The system prompt carries these files. */
    inSystemPrompt(paths: string[]): void {
      for (const p of paths) inSystem.add(p)
    },
    /** ToolServices.claimInstructions: the files not yet sent in this message or the system prompt, now marked sent. */
    claim(messageID: string, files: string[]): string[] {
      let seen = claimed.get(messageID)
      if (!seen) claimed.set(messageID, (seen = new Set()))
      const fresh = files.filter((f) => !inSystem.has(f) && !seen.has(f) && inside(f))
      for (const f of fresh) seen.add(f)
      return fresh
    },
  }
}
export type InstructionClaims = ReturnType<typeof createInstructionClaims>

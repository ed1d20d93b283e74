// Parser for the `*** Begin Patch` envelope. Strict about structure (every problem names its
// line), lenient about what models add around it: a heredoc or code fence wrapper, stray
// spaces around markers, unified-diff `@@ -a,b +c,d @@` headers, stacked `@@` anchors, blank
// lines between sections and '+'-less blank lines inside an added file.

import { toLf } from "../edit/text"
import type { PatchChunk, PatchLine, PatchOp } from "./types"

const HEADER = /^\*\*\* (Add File|Delete File|Update File):(.*)$/
const MOVE = /^\*\*\* Move to:(.*)$/
const EOF_MARK = "*** End of File"
const UNIFIED = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$/

function reject(reason: string): Error {
  return new Error(`patch rejected: ${reason}`)
}

function quote(s: string): string {
  return JSON.stringify(s.length > 100 ? s.slice(0, 99) + "…" : s)
}

/** Finds the envelope; returns the index range of the lines between its markers. */
function envelope(lines: string[]): [number, number] {
  let lo = 0
  let hi = lines.length - 1
  const skipBlank = () => {
    while (lo <= hi && lines[lo].trim() === "") lo++
    while (hi >= lo && lines[hi].trim() === "") hi--
  }
  skipBlank()
  if (lo > hi) throw reject("empty patch. Send the whole patch, from *** Begin Patch to *** End Patch.")
  for (;;) {
    const first = lines[lo].trim()
    const last = lines[hi].trim()
    const heredoc = /^(?:apply_patch\s+)?<<-?\s*(['"]?)EOF\1$/.test(first) && last === "EOF"
    const fence = first.startsWith("```") && last === "```" && lo < hi
    if (!heredoc && !fence) break
    lo++
    hi--
    skipBlank()
    if (lo > hi) throw reject("empty patch. Send the whole patch, from *** Begin Patch to *** End Patch.")
  }
  if (lines[lo].trim() !== "*** Begin Patch") {
    throw reject(`line ${lo + 1} must be "*** Begin Patch", found ${quote(lines[lo])}.`)
  }
  if (lo === hi || lines[hi].trim() !== "*** End Patch") {
    const end = lines.findIndex((l, i) => i > lo && l.trim() === "*** End Patch")
    if (end !== -1) throw reject(`line ${end + 1} is "*** End Patch" but text follows it (line ${hi + 1}: ${quote(lines[hi])}).`)
    throw reject(`the patch must end with a "*** End Patch" line; the last line (${hi + 1}) is ${quote(lines[hi])}. The patch may have been cut off: send it again in full.`)
  }
  return [lo + 1, hi]
}

export function parsePatch(patchText: string): PatchOp[] {
  const lines = toLf(patchText).split("\n")
  const [start, end] = envelope(lines)
  const ops: PatchOp[] = []
  let i = start
  const isFileHeader = (at: number) => HEADER.test(lines[at].trim())

  while (i < end) {
    const raw = lines[i]
    const trimmed = raw.trim()
    if (trimmed === "") {
      i++
      continue
    }
    const m = HEADER.exec(trimmed)
    if (!m) {
      if (trimmed.startsWith("***")) {
        throw reject(`line ${i + 1}: unknown marker ${quote(trimmed)}. A file section starts with "*** Add File: <path>", "*** Update File: <path>" or "*** Delete File: <path>".`)
      }
      throw reject(`line ${i + 1}: expected a file section header ("*** Add File: <path>", "*** Update File: <path>" or "*** Delete File: <path>"), found ${quote(raw)}.`)
    }
    const kind = m[1]
    const path = m[2].trim()
    if (path === "") throw reject(`line ${i + 1}: "*** ${kind}:" needs a file path after the colon.`)
    const headerLine = i + 1
    i++

    if (kind === "Delete File") {
      while (i < end && lines[i].trim() === "") i++
      if (i < end && !isFileHeader(i)) {
        throw reject(`line ${i + 1}: a "*** Delete File" section has no content, but found ${quote(lines[i])} after "*** Delete File: ${path}".`)
      }
      ops.push({ type: "delete", path })
      continue
    }

    if (kind === "Add File") {
      const content: string[] = []
      let blanks = 0
      while (i < end && !isFileHeader(i)) {
        const line = lines[i]
        if (line.startsWith("+")) {
          for (; blanks > 0; blanks--) content.push("")
          content.push(line.slice(1))
        } else if (line.trim() === "") blanks++
        else {
          throw reject(`line ${i + 1}: every line of "*** Add File: ${path}" must start with '+', found ${quote(line)}.`)
        }
        i++
      }
      ops.push({ type: "add", path, content: content.length ? content.join("\n") + "\n" : "" })
      continue
    }

    let moveTo: string | undefined
    if (i < end && MOVE.test(lines[i].trim())) {
      moveTo = MOVE.exec(lines[i].trim())![1].trim()
      if (moveTo === "") throw reject(`line ${i + 1}: "*** Move to:" needs a file path after the colon.`)
      i++
    }
    const chunks: PatchChunk[] = []
    while (i < end && !isFileHeader(i)) {
      if (lines[i].trim() === "") {
        i++
        continue
      }
      const parsed = parseChunk(lines, i, end, path, chunks.length === 0)
      chunks.push(parsed.chunk)
      i = parsed.next
    }
    if (chunks.length === 0 && moveTo === undefined) {
      throw reject(`line ${headerLine}: "*** Update File: ${path}" has no hunks. Add lines starting with '@@', ' ', '-' or '+' after it.`)
    }
    ops.push({ type: "update", path, ...(moveTo !== undefined ? { moveTo } : {}), chunks })
  }
  if (ops.length === 0) {
    throw reject("empty patch: there is no *** Add File, *** Update File or *** Delete File section between the markers.")
  }
  return ops
}

function parseChunk(lines: string[], at: number, end: number, path: string, first: boolean): { chunk: PatchChunk; next: number } {
  const context: string[] = []
  let i = at
  let headed = false
  while (i < end && lines[i].startsWith("@@")) {
    const header = lines[i].trim()
    const unified = UNIFIED.exec(header)
    const text = unified ? unified[1].trim() : header === "@@" ? "" : header.startsWith("@@ ") ? header.slice(3).trimEnd() : null
    if (text === null) throw reject(`line ${i + 1}: malformed hunk header ${quote(lines[i])}; write "@@" or "@@ <a line of the file just above the change>".`)
    if (text !== "") context.push(text)
    headed = true
    i++
  }
  if (!headed && !first) {
    throw reject(`line ${i + 1}: unexpected line ${quote(lines[i])} in "*** Update File: ${path}". Start each hunk with "@@", and begin every hunk line with ' ' (unchanged), '-' (removed) or '+' (added).`)
  }
  const body: PatchLine[] = []
  let bare = 0
  let endOfFile = false
  for (; i < end; i++) {
    const line = lines[i]
    if (line.trim() === EOF_MARK) {
      endOfFile = true
      i++
      break
    }
    if (line === "") {
      body.push({ op: " ", text: "" })
      bare++
      continue
    }
    const op = line[0]
    if (op === " " || op === "+" || op === "-") {
      body.push({ op, text: line.slice(1) })
      bare = 0
      continue
    }
    if (line.startsWith("@@") || HEADER.test(line.trim()) || line.trim() === "") break
    throw reject(`line ${i + 1}: unexpected line ${quote(line)} in "*** Update File: ${path}". Every hunk line starts with ' ' (unchanged), '-' (removed) or '+' (added); start a new hunk with "@@".`)
  }
  // Bare empty lines at the end of a hunk separate it from the next one; they are not context.
  body.splice(body.length - bare, bare)
  if (body.length === 0) {
    throw reject(`line ${at + 1}: a hunk of "*** Update File: ${path}" has no lines. Follow "@@" with the lines to change.`)
  }
  return { chunk: { context, lines: body, endOfFile, line: at + 1 }, next: i }
}

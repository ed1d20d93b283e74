// Reads a V8 heap snapshot as far as tests need: its `snapshot.meta` (parsed from the head of
// the file, which may be hundreds of MB) and whether a string occurs anywhere in it.
import { closeSync, openSync, readSync, statSync } from "node:fs"

export interface HeapMeta {
  node_fields: string[]
  node_types: unknown[]
  edge_fields: string[]
  edge_types: unknown[]
}

/** The `snapshot.meta` object; throws when the file does not start as a heap snapshot does. */
export function heapMeta(file: string): { meta: HeapMeta; nodeCount: number } {
  const fd = openSync(file, "r")
  const head = Buffer.alloc(Math.min(256 * 1024, statSync(file).size))
  readSync(fd, head, 0, head.length, 0)
  closeSync(fd)
  const text = head.toString("utf8")
  if (!/^\{\s*"snapshot"\s*:\s*\{/.test(text)) throw new Error(`not a heap snapshot: ${text.slice(0, 80)}`)
  const at = text.indexOf('"meta"')
  const start = text.indexOf("{", at)
  let depth = 0
  let end = start
  for (let inString = false; end < text.length; end++) {
    const ch = text[end]
    if (inString) {
      if (ch === "\\") end++
      else if (ch === '"') inString = false
    } else if (ch === '"') inString = true
    else if (ch === "{" || ch === "[") depth++
    else if (ch === "}" || ch === "]") {
      depth--
      if (depth === 0) break
    }
  }
  const meta = JSON.parse(text.slice(start, end + 1)) as HeapMeta
  const nodeCount = Number(/"node_count"\s*:\s*(\d+)/.exec(text)?.[1])
  return { meta, nodeCount }
}

/** Whether the file holds `needle` (as it would appear in the snapshot's strings), read in chunks. */
export function heapHas(file: string, needle: string): boolean {
  const want = Buffer.from(needle)
  const fd = openSync(file, "r")
  const chunk = Buffer.alloc(4 << 20)
  let carry = Buffer.alloc(0)
  try {
    for (let pos = 0; ; ) {
      const n = readSync(fd, chunk, 0, chunk.length, pos)
      if (n === 0) return false
      pos += n
      const window = Buffer.concat([carry, chunk.subarray(0, n)])
      if (window.includes(want)) return true
      carry = window.subarray(Math.max(0, window.length - want.length))
    }
  } finally {
    closeSync(fd)
  }
}

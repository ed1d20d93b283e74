/** Up to `max` candidates close to `query`: containment first, then small edit distance. */
export function suggest(query: string, candidates: string[], max = 3): string[] {
  const q = query.toLowerCase()
  const scored = candidates
    .map((c) => {
      const l = c.toLowerCase()
      const contained = (q.length >= 3 && l.includes(q)) || (l.length >= 3 && q.includes(l))
      return { c, score: contained ? 0 : distance(q, l) }
    })
    // Two edits for short ids ("grok" → "groq"), a third of the length for long ones.
    .filter((s) => s.score <= Math.max(2, Math.floor(q.length / 3)))
  scored.sort((a, b) => a.score - b.score || a.c.length - b.c.length || a.c.localeCompare(b.c))
  return scored.slice(0, max).map((s) => s.c)
}

/** Levenshtein distance, two rows. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = row
  }
  return prev[b.length]!
}

// The benchmark's SSE client, shared by run.ts (clients in the server's process) and
// clients.ts (clients in a process of their own, as a TUI or a browser is).
/** A lean SSE reader: keeps each event's raw JSON; stops after `session.idle` of the session. */
export async function readStream(url: string, sessionOf: () => string | undefined, onConnected: () => void, signal: AbortSignal): Promise<{ events: string[]; endAt: number }> {
  const res = await fetch(url, { signal })
  const decoder = new TextDecoder()
  const events: string[] = []
  let buffer = ""
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      // A logged event's frame starts with its `id:` line.
      const data = buffer.slice(buffer.startsWith("id:") ? buffer.indexOf("\n") + 7 : 6, end)
      buffer = buffer.slice(end + 2)
      if (data.startsWith('{"type":"server.connected"')) {
        onConnected()
        continue
      }
      const id = sessionOf()
      if (!id || !data.includes(id)) continue
      events.push(data)
      if (data.startsWith('{"type":"session.idle"')) return { events, endAt: now() }
    }
  }
  throw new Error("stream ended before session.idle")
}

/** Milliseconds on a clock every process of the machine shares (start and end may be taken in two processes). */
export const now = () => performance.timeOrigin + performance.now()

/** The model's answer: `deltas` text deltas. */
export const answerChunks = (deltas: number) => Array.from({ length: deltas }, (_, i) => `w${i} `)

/**
 * What the clients got: the events of the first one, and whether every client got the same
 * events in the same order and their deltas rebuild the answer.
 */
export function verdict(results: { events: string[]; endAt: number }[], deltas: number) {
  const reference = results[0]!.events
  const same = results.every((r) => r.events.length === reference.length && r.events.every((e, i) => e === reference[i]))
  const got = reference.filter((e) => e.startsWith('{"type":"message.part.delta"')).map((e) => JSON.parse(e).properties.delta as string)
  const inOrder = same && got.length === deltas && got.join("") === answerChunks(deltas).join("")
  return { events: reference.length, total: results.reduce((n, r) => n + r.events.length, 0), inOrder, endAt: Math.max(...results.map((r) => r.endAt)) }
}

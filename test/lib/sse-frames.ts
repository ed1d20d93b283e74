// A raw SSE reader for event-log tests: each frame's `id:` and parsed `data:`, as a client
// that tracks Last-Event-ID sees them. `until` stops reading (and cancels the body) after the
// frame it returns true for.
export interface Frame {
  id?: string
  type: string
  properties: Record<string, any>
  /** The frame's data exactly as sent. */
  raw: string
}

export async function readFrames(res: Response, until: (f: Frame, all: Frame[]) => boolean): Promise<Frame[]> {
  if (res.status !== 200) throw new Error(`event stream answered ${res.status}: ${await res.text()}`)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const frames: Frame[] = []
  let buffer = ""
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return frames
      buffer += decoder.decode(value, { stream: true })
      let end: number
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        let id: string | undefined
        let data = ""
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) id = line.slice(4)
          else if (line.startsWith("data: ")) data += line.slice(6)
        }
        const parsed = JSON.parse(data)
        // /global/event wraps each event as {directory, payload}.
        const event = parsed.payload ?? parsed
        const frame: Frame = { ...(id !== undefined ? { id } : {}), type: event.type, properties: event.properties, raw: data }
        frames.push(frame)
        if (until(frame, frames)) return frames
      }
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}

/** The frames of one session (the server's own connected/heartbeat/resync frames left out). */
export const ofSession = (frames: Frame[], sessionID: string) => frames.filter((f) => f.properties?.sessionID === sessionID)

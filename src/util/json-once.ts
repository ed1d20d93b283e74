const JSON_TEXT: unique symbol = Symbol("wright.json")

type Cached = { [JSON_TEXT]?: { of: object; json: string } }

/**
 * An event's JSON, computed on the first call and kept on the object (under a symbol, which
 * JSON.stringify skips): the bus hands one event object to every subscriber, so the event log
 * and every SSE client share one serialisation. Call it while the event is being published:
 * the objects an event carries (a part) may change afterwards.
 */
export function jsonOnce(event: object): string {
  const cached = (event as Cached)[JSON_TEXT]
  // `of`: a copy made with spread (`{...event, properties}`) carries the symbol, not its JSON.
  if (cached !== undefined && cached.of === event) return cached.json
  const json = JSON.stringify(event)
  ;(event as Cached)[JSON_TEXT] = { of: event, json }
  return json
}

const JSON_TEXT: unique symbol = Symbol("wright.json")

/**
 * An event's JSON, computed on the first call and kept on the object (under a symbol, which
 * JSON.stringify skips): the bus hands one event object to every subscriber, so the event log
 * and every SSE client share one serialisation. Call it while the event is being published:
 * the objects an event carries (a part) may change afterwards.
 */
export function jsonOnce(event: object): string {
  const cached = (event as { [JSON_TEXT]?: string })[JSON_TEXT]
  if (cached !== undefined) return cached
  const json = JSON.stringify(event)
  // Not enumerable: a copy made with spread (`{...event, properties}`) must not inherit it.
  Object.defineProperty(event, JSON_TEXT, { value: json })
  return json
}

const JSON_TEXT: unique symbol = Symbol("wright.json")

/**
 * An event's JSON, computed on the first call and kept on the object (under a symbol, which
 * JSON.stringify skips): the bus hands one event object to every subscriber, so the event log
 * and every SSE client share one serialisation. Call it while the event is being published:
 * the objects an event carries (a part) may change afterwards. A copy made with spread
 * carries the symbol too: build a changed event from its fields (`{type, properties}`).
 */
export function jsonOnce(event: object): string {
  const e = event as { [JSON_TEXT]?: string }
  return (e[JSON_TEXT] ??= JSON.stringify(event))
}

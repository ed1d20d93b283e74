// Typed publish/subscribe for one App. Delivery is synchronous and in order; a subscriber
// that throws is logged and never breaks the publisher. The event shapes live in protocol/.
// An echo is an event republished here for what another process did (the lease follower):
// subscribers see it like any other, but the event log skips it (that process logged it).
import type { BusEvent, EventProperties, EventType } from "../protocol"

export type Listener<T extends EventType = EventType> = (event: { type: T; properties: EventProperties<T> }) => void

export interface Bus {
  publish<T extends EventType>(type: T, properties: EventProperties<T>): void
  subscribe<T extends EventType>(type: T, listener: Listener<T>): () => void
  subscribeAll(listener: (event: BusEvent) => void): () => void
  /** Runs `fn`; whatever it publishes is marked as an echo of another process's writes. */
  echo<T>(fn: () => T): T
  /** True for an event published inside `echo`. */
  isEcho(event: object): boolean
}

export function createBus(onListenerError: (e: unknown) => void = (e) => console.error("bus listener failed:", e)): Bus {
  const byType = new Map<string, Set<(event: BusEvent) => void>>()
  const all = new Set<(event: BusEvent) => void>()
  const echoes = new WeakSet<object>()
  let echoing = 0

  function add(set: Set<(event: BusEvent) => void>, fn: (event: BusEvent) => void) {
    set.add(fn)
    return () => void set.delete(fn)
  }

  return {
    publish(type, properties) {
      const event = { type, properties } as BusEvent
      if (echoing) echoes.add(event)
      for (const fn of byType.get(type) ?? []) deliver(fn, event)
      for (const fn of all) deliver(fn, event)
    },
    subscribe(type, listener) {
      let set = byType.get(type)
      if (!set) byType.set(type, (set = new Set()))
      return add(set, listener as (event: BusEvent) => void)
    },
    subscribeAll(listener) {
      return add(all, listener)
    },
    echo(fn) {
      echoing++
      try {
        return fn()
      } finally {
        echoing--
      }
    },
    isEcho: (event) => echoes.has(event),
  }

  function deliver(fn: (event: BusEvent) => void, event: BusEvent) {
    try {
      fn(event)
    } catch (e) {
      onListenerError(e)
    }
  }
}

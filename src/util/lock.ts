// In-process keyed mutex: callers with the same key run one at a time, in arrival order.
// Used for per-file edits and per-session runs.
export function createKeyedLock() {
  const tails = new Map<string, Promise<void>>()
  return async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const current = new Promise<void>((r) => (release = r))
    const tail = previous.then(() => current)
    tails.set(key, tail)
    await previous
    try {
      return await fn()
    } finally {
      release()
      if (tails.get(key) === tail) tails.delete(key)
    }
  }
}

// Work that may wait for a quiet moment (a language server's npm install: seconds of CPU) is
// held until nothing has been busy for a while: no tool call running for `quietMs`. In a
// session with a real model that is the first wait for the model's next step or for the user;
// a one-shot run whose steps follow each other at once, and which exits when its loop ends,
// never starts it (its process could not have used the result).

export interface IdleGate {
  /** Runs `work` counted as busy: the quiet period starts again after it settles. */
  busy<T>(work: () => Promise<T>): Promise<T>
  /** Calls `fn` once nothing has been busy for the quiet period (at once counts only after it). Never throws. */
  whenIdle(fn: () => void): void
}

export function createIdleGate(quietMs: number): IdleGate {
  let running = 0
  let timer: NodeJS.Timeout | undefined
  const waiting: (() => void)[] = []
  const arm = () => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (running > 0 || waiting.length === 0) return
    timer = setTimeout(() => {
      timer = undefined
      for (const fn of waiting.splice(0)) fn()
    }, quietMs)
    // Waiting for quiet never keeps a process alive that is otherwise done.
    timer.unref()
  }
  return {
    async busy(work) {
      running++
      arm()
      try {
        return await work()
      } finally {
        running--
        arm()
      }
    },
    whenIdle(fn) {
      waiting.push(fn)
      if (!timer) arm()
    },
  }
}

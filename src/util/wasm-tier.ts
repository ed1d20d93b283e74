import v8 from "node:v8"

let holds = 0

/**
 * While held, WebAssembly compiled by this process uses V8's baseline compiler only
 * (Liftoff): V8 reads the flag as a module compiles, so code compiled meanwhile never tiers up
 * to the optimising compiler, whose background work a short process otherwise waits for at
 * exit. Holds nest; the returned function releases this one (calling it again does nothing).
 */
export function holdBaselineWasm(): () => void {
  if (holds++ === 0) v8.setFlagsFromString("--liftoff-only")
  let released = false
  return () => {
    if (released) return
    released = true
    if (--holds === 0) v8.setFlagsFromString("--no-liftoff-only")
  }
}

// Raw input from Ink's stdin pipeline (already split into one escape sequence or one run of
// text per call), with bracketed paste gathered into one string. Ink's `useInput` would turn
// a paste into keys and loses Alt+Enter and the paste markers.
import { useStdin } from "ink"
import { useEffect, useRef } from "react"

interface InkStdin {
  isRawModeSupported: boolean
  stdin?: NodeJS.ReadStream
  setRawMode(on: boolean): void
  internal_eventEmitter?: { on(e: "input", fn: (s: string) => void): void; removeListener(e: "input", fn: (s: string) => void): void }
}

export const PASTE_START = "\x1b[200~"
export const PASTE_END = "\x1b[201~"

/**
 * `enabled` false lets go of the terminal (raw mode off, nothing read) while another program
 * has it (the user's editor), and takes it back when true again.
 */
export function useRawInput(onInput: (raw: string) => void, onPaste: (text: string) => void, enabled = true) {
  const stdin = useStdin() as unknown as InkStdin
  const handlers = useRef({ onInput, onPaste })
  handlers.current = { onInput, onPaste }
  const stopped = useRef(false)
  useEffect(() => {
    // Ink stops listening once raw mode is off, but a read Node already started on the terminal
    // goes on and takes the editor's keys into stdin's buffer (seen as an editor that never got
    // its line, now and then): the read is stopped, and started again after (the stream still
    // counts its read as pending, so a new listener alone would not). Node's tty handle has no
    // public way to do this.
    const handle = (stdin.stdin as unknown as { _handle?: { reading?: boolean; readStop?(): void; readStart?(): void } } | undefined)?._handle
    if (!enabled) {
      if (handle?.reading && handle.readStop) {
        handle.readStop()
        handle.reading = false
        stopped.current = true
      }
      return
    }
    if (stdin.isRawModeSupported) stdin.setRawMode(true)
    if (stopped.current && handle?.readStart && !handle.reading) {
      handle.reading = true
      handle.readStart()
    }
    stopped.current = false
    let pasting: string | undefined
    const listener = (raw: string): void => {
      if (pasting !== undefined) {
        const end = raw.indexOf(PASTE_END)
        if (end === -1) return void (pasting += raw)
        const text = pasting + raw.slice(0, end)
        pasting = undefined
        return handlers.current.onPaste(text)
      }
      if (raw.startsWith(PASTE_START)) {
        pasting = ""
        const rest = raw.slice(PASTE_START.length)
        return rest ? listener(rest) : undefined
      }
      // A multi-line run without paste markers is a paste from a terminal that does not
      // bracket it; "text\r" alone is fast typing followed by Enter.
      if (!raw.startsWith("\x1b") && raw.length > 2 && /[\r\n]/.test(raw.replace(/\r$/, ""))) return handlers.current.onPaste(raw)
      handlers.current.onInput(raw)
    }
    stdin.internal_eventEmitter?.on("input", listener)
    return () => {
      stdin.internal_eventEmitter?.removeListener("input", listener)
      if (stdin.isRawModeSupported) stdin.setRawMode(false)
    }
  }, [stdin, enabled])
}

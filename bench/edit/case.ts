// Shape of one edit benchmark case: a file, the edit a model sent, and what must happen.

import type { EditErrorKind } from "../../src/tool/edit/engine"

export interface EditCase {
  name: string
  file: string
  oldString: string
  newString: string
  replaceAll?: boolean
  /** The whole file after the edit, or the refusal expected instead. */
  expect: { text: string } | { error: EditErrorKind }
}

/** Joins lines with LF and ends the text with a newline, like most source files. */
export function lines(...ls: string[]): string {
  return ls.join("\n") + "\n"
}

/** Joins lines with LF, no final newline (for oldString/newString). */
export function snip(...ls: string[]): string {
  return ls.join("\n")
}

export function crlf(s: string): string {
  return s.replace(/\n/g, "\r\n")
}

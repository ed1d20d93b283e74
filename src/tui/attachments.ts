// Images attached to the prompt (issue 35 part 1). A pasted path to an image file and an image
// from the clipboard (Ctrl+V) become `[Image N]` chips in the prompt's text; the image itself
// waits here as a data URL and goes with the prompt as an image file part while its chip is in
// the text. `@shot.png` needs no chip: the mention is sent as a file part with an image mime.
// The file is read here, on the user's side, so an image pasted into a TUI attached to a
// remote `wright serve` still reaches it.
import { readFileSync, statSync } from "node:fs"
import { homedir } from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import type { PartInput } from "../protocol"

const MIME: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" }

/** The image mime of a file name by its extension; undefined for anything else. */
export const imageMime = (name: string): string | undefined => MIME[path.extname(name).toLowerCase()]

/** Larger files are refused before they are read: the core would refuse them anyway after a long trip. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024

/**
 * The path a paste names, as terminals paste a dragged file: one path, maybe in quotes or with
 * backslash-escaped spaces, maybe a `file://` URL, `~/` or relative to `directory`. Undefined
 * when the text is anything else (several lines, words around it).
 */
export function pastedPath(text: string, directory: string, home = homedir()): string | undefined {
  let s = text.trim()
  if (!s || /[\r\n]/.test(s)) return undefined
  const quoted = /^(['"])(.*)\1$/.exec(s)
  if (quoted) s = quoted[2]!
  else {
    // Unquoted: a bare space means words, not a path; `\ ` (and `\(` …) is an escaped character.
    if (/(^|[^\\])\s/.test(s)) return undefined
    s = s.replace(/\\(.)/g, "$1")
  }
  if (s.startsWith("file://")) {
    try {
      return fileURLToPath(s)
    } catch {
      return undefined
    }
  }
  if (s === "~" || s.startsWith("~/")) return path.join(home, s.slice(1))
  return path.resolve(directory, s)
}

export interface Image {
  mime: string
  /** A data: URL. */
  url: string
  filename?: string
}

/**
 * The image a paste names, read; undefined when the paste is not the path of an existing image
 * file (then it is ordinary text). A file too large is an error with its name.
 */
export function readPastedImage(text: string, directory: string, home?: string): Image | undefined {
  const file = pastedPath(text, directory, home)
  const mime = file && imageMime(file)
  if (!file || !mime) return undefined
  const stat = statSync(file, { throwIfNoEntry: false })
  if (!stat?.isFile()) return undefined
  if (stat.size > MAX_IMAGE_BYTES) throw new Error(`${file} is ${Math.round(stat.size / 1024 / 1024)} MB: images over ${MAX_IMAGE_BYTES / 1024 / 1024} MB are not attached`)
  return { mime, url: `data:${mime};base64,${readFileSync(file).toString("base64")}`, filename: path.basename(file) }
}

const CHIP = /\[Image (\d+)\]/g

/** The images of this TUI, by chip. Numbers are never reused, so a chip recalled from history still names its image. */
export function createAttachments() {
  const images = new Map<string, Image>()
  return {
    /** Keeps an image; returns the chip to put in the prompt. */
    add(image: Image): string {
      const chip = `[Image ${images.size + 1}]`
      images.set(chip, image)
      return chip
    },
    /** File parts for the chips in `text`, once each, in order. */
    partsFor(text: string): PartInput[] {
      const seen = new Set<string>()
      const parts: PartInput[] = []
      for (const [chip] of text.matchAll(CHIP)) {
        const image = images.get(chip)
        if (!image || seen.has(chip)) continue
        seen.add(chip)
        parts.push({ type: "file", mime: image.mime, url: image.url, filename: image.filename ?? chip.slice(1, -1) })
      }
      return parts
    },
  }
}

export type Attachments = ReturnType<typeof createAttachments>

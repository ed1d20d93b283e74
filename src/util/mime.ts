import path from "node:path"

const BY_EXTENSION: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".wasm": "application/wasm",
}

/** The mime type a file name implies, or undefined for an extension wright does not know (usually text). */
export function mimeOf(name: string): string | undefined {
  return BY_EXTENSION[path.extname(name).toLowerCase()]
}

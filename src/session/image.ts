// Attached images fitted to what providers take, when the user message is built: larger than
// `attachment.image.max_width` × `max_height` (default 2000 × 2000) or than `max_base64_bytes`
// once encoded (default 5 MB, Anthropic's limit per image), an image is scaled down inside that
// box, keeping its proportions, and re-encoded (PNG stays PNG unless only JPEG fits). sharp (a
// prebuilt libvips) loads only when an image needs it. `auto_resize: false` sends images as
// they are. An image that cannot be made to fit, or cannot be read, is refused with a note the
// model reads, never a failed prompt.
import type { Config } from "../config"

export type ImageLimits = NonNullable<NonNullable<Config["attachment"]>["image"]>

export const IMAGE_DEFAULTS = { max_width: 2000, max_height: 2000, max_base64_bytes: 5 * 1024 * 1024 }

export type Fitted =
  | { kind: "as-is" }
  | { kind: "resized"; data: Buffer; mime: string; from: [number, number]; to: [number, number] }
  | { kind: "refused"; why: string }

const base64Size = (bytes: number) => Math.ceil(bytes / 3) * 4

/** Fits one image to the limits; "as-is" when it already fits (or resizing is off). */
export async function fitImage(data: Buffer, mime: string, limits: ImageLimits | undefined): Promise<Fitted> {
  const maxW = limits?.max_width ?? IMAGE_DEFAULTS.max_width
  const maxH = limits?.max_height ?? IMAGE_DEFAULTS.max_height
  const maxBytes = limits?.max_base64_bytes ?? IMAGE_DEFAULTS.max_base64_bytes
  if (limits?.auto_resize === false) return { kind: "as-is" }
  const { default: sharp } = await import("sharp")
  let meta: { width?: number; height?: number }
  try {
    meta = await sharp(data).metadata()
  } catch (e) {
    return { kind: "refused", why: `it could not be read as ${mime} (${(e as Error).message})` }
  }
  const [w, h] = [meta.width ?? 0, meta.height ?? 0]
  if (w <= maxW && h <= maxH && base64Size(data.length) <= maxBytes) return { kind: "as-is" }
  const box = { width: Math.min(w, maxW), height: Math.min(h, maxH), fit: "inside" as const, withoutEnlargement: true }
  // PNG keeps its kind (screenshots, text) when it fits; photos and what does not fit become JPEG.
  const attempts: [string, (s: ReturnType<typeof sharp>) => ReturnType<typeof sharp>][] = [
    ...(mime === "image/png" ? [["image/png", (s) => s.png({ compressionLevel: 9 })] as [string, (s: ReturnType<typeof sharp>) => ReturnType<typeof sharp>]] : []),
    ["image/jpeg", (s) => s.jpeg({ quality: 85 })],
    ["image/jpeg", (s) => s.jpeg({ quality: 60 })],
  ]
  for (let scale = 1; scale >= 0.25; scale /= 2) {
    const size = { ...box, width: Math.max(1, Math.floor(box.width * scale)), height: Math.max(1, Math.floor(box.height * scale)) }
    for (const [outMime, encode] of attempts) {
      const { data: out, info } = await encode(sharp(data).rotate().resize(size)).toBuffer({ resolveWithObject: true })
      if (base64Size(out.length) <= maxBytes) return { kind: "resized", data: out, mime: outMime, from: [w, h], to: [info.width, info.height] }
    }
  }
  return { kind: "refused", why: `it stays over ${maxBytes} bytes of base64 even at a quarter of ${maxW}×${maxH}` }
}

// The clipboard's image for the TUI's Ctrl+V (issue 35 part 1): `wl-paste` on Wayland, `xclip`
// on X11, run through the spawner. A terminal cannot carry an image in a paste, so the tools
// that own the clipboard are asked directly; which image types it holds is asked first, so a
// clipboard of text is "no image" rather than text bytes read as a picture.
import { createExec, type Exec } from "../../process"

export interface ClipboardImage {
  mime: string
  data: Buffer
}

const TIMEOUT_MS = 5000
const PREFERRED = ["image/png", "image/jpeg", "image/webp", "image/gif"]

/** Runs one tool; undefined when it is not installed; the stdout when it exits 0; throws otherwise with its stderr. */
async function run(exec: Exec, argv: string[], cwd: string): Promise<Buffer | undefined> {
  const child = await exec(argv, { cwd, timeout: TIMEOUT_MS }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return undefined
    throw e
  })
  if (!child) return undefined
  const out: Buffer[] = []
  const err: Buffer[] = []
  child.stdout.on("data", (b: Buffer) => out.push(b))
  child.stderr.on("data", (b: Buffer) => err.push(b))
  const exit = await child.done
  if (exit.code === 0) return Buffer.concat(out)
  const why = Buffer.concat(err).toString("utf8").trim().split("\n")[0] || (exit.timedOut ? "timed out" : `exit ${exit.code ?? exit.signal}`)
  throw new Error(`${argv[0]} failed: ${why}`)
}

/** The image type to take from a list of clipboard types (one a line), PNG first. */
function pick(types: string): string | undefined {
  const list = types.split(/\r?\n/).map((t) => t.trim())
  return PREFERRED.find((t) => list.includes(t)) ?? list.find((t) => t.startsWith("image/") && PREFERRED.includes(t))
}

/**
 * Reads the clipboard's image: wl-paste when a Wayland display is set, else xclip. Undefined
 * when the clipboard holds no image; throws a clear error when neither tool is installed.
 */
export function clipboardReader(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): () => Promise<ClipboardImage | undefined> {
  const exec = createExec({ env })
  return async () => {
    const tools: [string[], (type: string) => string[]][] = [
      ...(env.WAYLAND_DISPLAY ? [[["wl-paste", "--list-types"], (t: string) => ["wl-paste", "--no-newline", "--type", t]] as [string[], (type: string) => string[]]] : []),
      [["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"], (t) => ["xclip", "-selection", "clipboard", "-t", t, "-o"]],
    ]
    for (const [list, read] of tools) {
      const types = await run(exec, list, cwd)
      if (types === undefined) continue
      const type = pick(types.toString("utf8"))
      if (!type) return undefined
      const data = await run(exec, read(type), cwd)
      return data?.length ? { mime: type, data } : undefined
    }
    throw new Error(env.WAYLAND_DISPLAY ? "no clipboard tool found: install wl-clipboard (wl-paste)" : "no clipboard tool found: install xclip")
  }
}

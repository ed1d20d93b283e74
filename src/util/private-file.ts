// A file only its owner may read (keys, OAuth tokens): written whole to a new temp file opened
// "wx" with mode 0600 (never through a file or link already there), fsynced, then renamed over
// the old one, in a folder created 0700. A failure leaves the old file as it was.
import { randomBytes } from "node:crypto"
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs"
import path from "node:path"

export function writePrivateJson(file: string, data: unknown): void {
  const dir = path.dirname(file)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`)
  const fd = openSync(tmp, "wx", 0o600)
  try {
    writeSync(fd, `${JSON.stringify(data, null, 2)}\n`)
    fsyncSync(fd)
    closeSync(fd)
    renameSync(tmp, file)
  } catch (e) {
    try {
      closeSync(fd)
    } catch {}
    try {
      unlinkSync(tmp)
    } catch {}
    throw e
  }
}

// Every file under a folder with its mtime, mode and content hash: two equal fingerprints show
// that nothing in it was written (the project's .git after a session with snapshots).
import { createHash } from "node:crypto"
import { lstatSync, readdirSync, readFileSync } from "node:fs"
import path from "node:path"

export function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name)
      const st = lstatSync(p)
      if (st.isDirectory()) walk(p)
      else out[path.relative(dir, p)] = `${st.mtimeMs}:${st.mode}:${createHash("sha1").update(readFileSync(p)).digest("hex")}`
    }
  }
  walk(dir)
  return out
}

// Opening a link in the user's browser, for the commands that print one (MCP OAuth, sign-ins,
// the web UI's pairing link): `$BROWSER url` (its words split as a shell would for quotes),
// else xdg-open / open, through the spawner. A failure only means the user opens the printed link.
import { createExec } from "../process"
import { dim } from "./ui"

export async function openBrowser(url: string, cwd: string): Promise<void> {
  const browser = process.env.BROWSER?.trim()
  const argv = browser ? [...splitWords(browser), url] : [process.platform === "darwin" ? "open" : "xdg-open", url]
  try {
    const child = await createExec({ env: process.env })(argv, { cwd })
    child.stdout.resume()
    child.stderr.resume()
  } catch {
    process.stderr.write(dim("(Could not open a browser: open the link above yourself.)\n"))
  }
}

/** Words of a command line: "…" and '…' are one word each, without their quotes. */
export function splitWords(s: string): string[] {
  return [...s.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!)
}

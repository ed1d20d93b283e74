// Piped input for `wright auth`: stdin read whole when the key is not typed (typing goes
// through ../line-input).
import { UserError } from "../ui"

/** All of piped stdin: its first non-empty line, trimmed. */
export async function readPiped(what: string): Promise<string> {
  let text = ""
  for await (const chunk of process.stdin) text += chunk.toString()
  const line = text.split(/\r?\n/).map((l) => l.trim()).find(Boolean)
  if (!line) throw new UserError(`no ${what} on stdin`)
  return line
}

// The floor of `run`: the smallest Node program that does what `wright run` must do for one
// answer — POST the same streamed request (the body wright sent, read from a file, so the
// same wire and size) to the same server, parse the SSE stream and write the text to stdout.
// No dependencies, nothing else. Every `run` figure of the foundation bench is a ratio to it.
// Usage: node bench/foundation/floor.mjs URL BODY_FILE [API_KEY]
import { readFileSync } from "node:fs"

const [url, bodyFile, key = "bench"] = process.argv.slice(2)
const res = await fetch(url, {
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
  body: readFileSync(bodyFile),
})
if (!res.ok || !res.body) throw new Error(`floor: HTTP ${res.status}`)
const decoder = new TextDecoder()
let buffer = ""
for await (const chunk of res.body) {
  buffer += decoder.decode(chunk, { stream: true })
  let end
  while ((end = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, end).trim()
    buffer = buffer.slice(end + 1)
    if (!line.startsWith("data:")) continue
    const data = line.slice(5).trim()
    if (data === "[DONE]") continue
    const text = JSON.parse(data).choices?.[0]?.delta?.content
    if (text) process.stdout.write(text)
  }
}
process.stdout.write("\n")

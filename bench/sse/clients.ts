// The benchmark's SSE clients in a process of their own, as a TUI or a browser is: so the
// server's process pays only for serving them. Args: url sessionID clients deltas. Prints
// "connected" once every client has its stream, then one JSON line (see reader.ts `verdict`).
import { readStream, verdict } from "./reader"

const [url, sessionID, clients, deltas] = process.argv.slice(2)
const n = Number(clients)
let connected = 0
const controller = new AbortController()
const results = await Promise.all(
  Array.from({ length: n }, () => readStream(url!, () => sessionID, () => ++connected === n && console.log("connected"), controller.signal)),
)
controller.abort()
console.log(JSON.stringify(verdict(results, Number(deltas))))
process.exit(0)

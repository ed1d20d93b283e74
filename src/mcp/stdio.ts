// The MCP client transport for local servers, over a child the spawner already started: one
// JSON-RPC message per line on its stdin and stdout (the SDK's own framing). Closing ends the
// server's whole process group, so helpers it started die with it too.
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import type { Child } from "../process"

/** How long a server may take to exit by itself once its stdin is closed (the SDK's own transport waits as long). */
const EXIT_WAIT_MS = 2000

export class ChildTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly buffer = new ReadBuffer()
  private ended = false

  constructor(private readonly child: Child) {}

  async start(): Promise<void> {
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk)
      for (;;) {
        let message: JSONRPCMessage | null
        try {
          message = this.buffer.readMessage()
        } catch (e) {
          // The bad line is consumed; the next one may be fine.
          this.onerror?.(e as Error)
          continue
        }
        if (message === null) break
        this.onmessage?.(message)
      }
    })
    void this.child.done.then(() => {
      this.ended = true
      this.buffer.clear()
      this.onclose?.()
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child.stdin
    if (this.ended || !stdin || stdin.destroyed) return Promise.reject(new Error("Not connected: the server process has exited"))
    return new Promise((resolve, reject) => stdin.write(serializeMessage(message), (e) => (e ? reject(e) : resolve())))
  }

  /** As the MCP spec asks: close its stdin and let it exit, then end whatever is left of its group. */
  async close(): Promise<void> {
    this.child.stdin?.end()
    let wait: NodeJS.Timeout | undefined
    await Promise.race([this.child.done, new Promise((resolve) => (wait = setTimeout(resolve, EXIT_WAIT_MS)))])
    clearTimeout(wait)
    this.child.kill()
    await this.child.done
  }
}

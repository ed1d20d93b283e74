// The editor's buffers for the file tools of one session (ACP's fs capabilities): when a session
// attached them (PUT /session/:id/editor), the file service asks here, which publishes
// `editor.file.requested` and waits for the front end's answer (POST /session/:id/editor/:requestID).
// It never touches the disk itself; an unanswered request fails the tool after a timeout.
import { randomUUID } from "node:crypto"
import type { Bus } from "../bus"
import type { EditorFileReply, SessionEditorInput } from "../protocol"
import type { EditorFiles } from "../tool"

/** How long a tool waits for the editor to answer a read or a write. */
export const EDITOR_TIMEOUT_MS = 30_000

interface Pending {
  sessionID: string
  resolve(reply: EditorFileReply): void
}

export type EditorBridge = ReturnType<typeof createEditorBridge>

export interface EditorBridgeDeps {
  bus: Bus
  /** A session's parent: a subtask uses the editor of the session that started it. Undefined: none. */
  parentOf?(sessionID: string): string | undefined
  timeoutMs?: number
}

export function createEditorBridge(deps: EditorBridgeDeps) {
  const attached = new Map<string, SessionEditorInput>()
  const pending = new Map<string, Pending>()
  const timeout = deps.timeoutMs ?? EDITOR_TIMEOUT_MS

  function ask(sessionID: string, operation: "read" | "write", file: string, content?: string, signal?: AbortSignal): Promise<EditorFileReply> {
    const requestID = `edf_${randomUUID()}`
    return new Promise<EditorFileReply>((resolve, reject) => {
      signal?.throwIfAborted()
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener("abort", onAbort)
        pending.delete(requestID)
      }
      const onAbort = () => {
        done()
        reject(signal!.reason)
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`The editor did not answer the ${operation} of ${file} within ${timeout / 1000} s. Try again, or check the editor.`))
      }, timeout)
      signal?.addEventListener("abort", onAbort, { once: true })
      pending.set(requestID, {
        sessionID,
        resolve: (reply) => {
          done()
          resolve(reply)
        },
      })
      deps.bus.publish("editor.file.requested", { sessionID, requestID, operation, path: file, ...(content !== undefined ? { content } : {}) })
    })
  }

  const api = {
    /** Routes the session's reads and/or writes through its editor (both false: back to the disk). */
    attach(sessionID: string, input: SessionEditorInput) {
      if (input.read || input.write) attached.set(sessionID, input)
      else attached.delete(sessionID)
    },
    /**
     * The file service's view of the session's editor (or of the nearest ancestor's, for a
     * subtask: its requests carry its own id); undefined when none attached one.
     */
    files(sessionID: string): EditorFiles | undefined {
      if (attached.size === 0) return undefined
      let a = attached.get(sessionID)
      for (let id = deps.parentOf?.(sessionID), depth = 0; !a && id && depth < 32; id = deps.parentOf?.(id), depth++) a = attached.get(id)
      if (!a) return undefined
      return {
        ...(a.read
          ? {
              read: async (file: string, signal?: AbortSignal) => {
                const reply = await ask(sessionID, "read", file, undefined, signal)
                if (reply.error !== undefined || reply.content === undefined) throw new Error(`The editor could not read ${file}: ${reply.error ?? "it sent no content"}`)
                return reply.content
              },
            }
          : {}),
        ...(a.write
          ? {
              write: async (file: string, content: string) => {
                const reply = await ask(sessionID, "write", file, content)
                if (reply.error !== undefined) throw new Error(`The editor could not write ${file}: ${reply.error}. Nothing was written.`)
              },
            }
          : {}),
      }
    },
    /** The front end's answer; false when no such request of that session is waiting (answered, timed out, unknown). */
    reply(sessionID: string, requestID: string, reply: EditorFileReply): boolean {
      const p = pending.get(requestID)
      if (!p || p.sessionID !== sessionID) return false
      p.resolve(reply)
      return true
    },
    /** The session is gone: its requests fail at once. */
    forget(sessionID: string) {
      attached.delete(sessionID)
      for (const p of [...pending.values()]) if (p.sessionID === sessionID) p.resolve({ error: "the session was deleted" })
    },
  }
  return api
}

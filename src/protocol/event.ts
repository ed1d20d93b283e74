import { z } from "zod"
import { MessageError } from "./error"
import { Message } from "./message"
import { Part } from "./part"
import { PermissionReply, PermissionRequest } from "./permission"
import { FileDiff, QuestionRequest, Session, SessionStatus, Todo } from "./session"
import { InboxItem } from "./inbox"

/** Every event published on the bus and streamed over SSE, by type, with its properties. */
export const Events = {
  "server.connected": z.object({}),
  "server.heartbeat": z.object({}),
  "server.instance.disposed": z.object({ directory: z.string() }),
  // A replay (Last-Event-ID, ?after=) cannot be served from the event log: events after that id
  // were dropped (trimmed, compacted), the id is unknown here, or there are too many. The client
  // reloads its state (`sessions`: only those sessions), then goes on with the live events.
  "server.resync": z.object({ reason: z.enum(["trimmed", "unknown-id", "too-many"]), sessions: z.array(z.string()).optional() }),

  "session.created": z.object({ sessionID: z.string(), info: Session }),
  "session.updated": z.object({ sessionID: z.string(), info: Session }),
  "session.deleted": z.object({ sessionID: z.string(), info: Session }),
  "session.status": z.object({ sessionID: z.string(), status: SessionStatus }),
  "session.idle": z.object({ sessionID: z.string() }),
  "session.error": z.object({ sessionID: z.string().optional(), error: MessageError.optional() }),
  "session.compacted": z.object({ sessionID: z.string() }),
  // After each step that changed files: the session's changes so far, per file.
  "session.diff": z.object({ sessionID: z.string(), diff: z.array(FileDiff) }),
  // The prompts waiting in a session's inbox, in delivery order, after every change (empty: none).
  "session.inbox.updated": z.object({ sessionID: z.string(), items: z.array(InboxItem) }),

  "message.updated": z.object({ sessionID: z.string(), info: Message }),
  "message.removed": z.object({ sessionID: z.string(), messageID: z.string() }),
  "message.part.updated": z.object({ sessionID: z.string(), part: Part, time: z.number() }),
  "message.part.delta": z.object({
    sessionID: z.string(),
    messageID: z.string(),
    partID: z.string(),
    field: z.string(),
    delta: z.string(),
  }),
  "message.part.removed": z.object({ sessionID: z.string(), messageID: z.string(), partID: z.string() }),

  "permission.asked": PermissionRequest,
  "permission.replied": z.object({ sessionID: z.string(), requestID: z.string(), reply: PermissionReply }),

  "question.asked": QuestionRequest,
  "question.replied": z.object({ sessionID: z.string(), requestID: z.string(), answers: z.array(z.array(z.string())) }),
  "question.rejected": z.object({ sessionID: z.string(), requestID: z.string() }),

  "todo.updated": z.object({ sessionID: z.string(), todos: z.array(Todo) }),
  "command.executed": z.object({ name: z.string(), sessionID: z.string(), arguments: z.string(), messageID: z.string() }),
  // Each file a tool wrote, moved or deleted (absolute path), published by the file service.
  "file.edited": z.object({ file: z.string() }),
  "mcp.tools.changed": z.object({ server: z.string() }),
  // A language server started, failed or was disabled (GET /lsp has the states).
  "lsp.updated": z.object({}),
  // A file's diagnostics after a tool wrote it: its error and warning counts.
  "lsp.diagnostics": z.object({ file: z.string(), errors: z.number(), warnings: z.number() }),
  // A tool of a session whose editor attached its buffers (PUT /session/:id/editor) reads or
  // writes a file: the editor answers at POST /session/:id/editor/:requestID.
  "editor.file.requested": z.object({ sessionID: z.string(), requestID: z.string(), operation: z.enum(["read", "write"]), path: z.string(), content: z.string().optional() }),
  // A remote MCP server needs an OAuth login (`wright mcp auth <server>`); front ends tell the user.
  "mcp.auth.required": z.object({ server: z.string(), message: z.string() }),
  // A notice for the user (OpenCode's event), e.g. the TUI's config reload and its errors.
  "tui.toast.show": z.object({ title: z.string().optional(), message: z.string(), variant: z.enum(["info", "success", "warning", "error"]) }),
} as const

export type EventType = keyof typeof Events
export type EventProperties<T extends EventType> = z.infer<(typeof Events)[T]>
export type BusEvent = { [T in EventType]: { type: T; properties: EventProperties<T> } }[EventType]

/** The SSE envelope: `data: {"type":…, "properties":…}`. */
export const EventEnvelope = z.object({ type: z.string(), properties: z.record(z.string(), z.unknown()) })

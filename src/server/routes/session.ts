import { z } from "zod"
import {
  BadRequestError,
  BusyError,
  FileDiff,
  MessageWithParts,
  Session,
  SessionCreateInput,
  SessionForkInput,
  SessionRevertInput,
  SessionStatus,
  SessionSummarizeInput,
  SessionUpdateInput,
  Todo,
} from "../../protocol"
import { createWorktree, fork, revert, unrevert, WorktreeError, type App } from "../../session"
import { route, type ServerContext } from "../route"

const id = (params: Record<string, string>) => params.id!

/** 409 while the loop or a user shell command runs in the session. */
export function assertIdle(app: App, server: ServerContext, sessionID: string) {
  if (app.sessions.busy(sessionID) || server.shells(app).busy(sessionID)) throw new BusyError({ sessionID, message: `Session ${sessionID} is busy` })
}


/** How long POST /session/:id/abort waits for the loop to unwind before it answers anyway. */
const ABORT_WAIT_MS = 10_000
export const sessionRoutes = [
  route({
    method: "get",
    path: "/session",
    operationId: "session.list",
    summary: "List sessions, most recently updated first",
    tags: ["session"],
    query: z.object({
      search: z.string().optional(),
      limit: z.coerce.number().int().positive().optional(),
      roots: z.enum(["true", "false"]).optional(),
      start: z.coerce.number().optional(),
    }),
    response: z.array(Session),
    handler: ({ app, query }) => {
      const list = app.sessions.list({ search: query.search, roots: query.roots === "true", limit: query.start === undefined ? query.limit : undefined })
      if (query.start === undefined) return list
      const since = list.filter((s) => s.time.updated >= query.start!)
      return query.limit === undefined ? since : since.slice(0, query.limit)
    },
  }),
  route({
    method: "post",
    path: "/session",
    operationId: "session.create",
    summary: "Create a session",
    tags: ["session"],
    body: SessionCreateInput,
    response: Session,
    handler: async ({ app, body, server }) => {
      if (body.worktree === undefined) return app.sessions.create(body)
      // The session lives in the new worktree's App: its directory is the worktree.
      const made = await createWorktree({ exec: app.exec, dataDir: app.paths.data, env: process.env }, app.worktree, body.worktree === true ? undefined : body.worktree).catch((e) => {
        if (!(e instanceof WorktreeError)) throw e
        throw new BadRequestError({ message: `Invalid request: body.worktree: ${e.message}`, issues: [{ path: "body.worktree", message: e.message }] })
      })
      const { worktree: _, ...rest } = body
      return (await server.getApp(made.path)).sessions.create(rest)
    },
  }),
  route({
    method: "get",
    path: "/session/status",
    operationId: "session.status",
    summary: "Status of every session that is not idle",
    tags: ["session"],
    response: z.record(z.string(), SessionStatus),
    handler: ({ app }) => app.sessions.statuses(),
  }),
  route({
    method: "get",
    path: "/session/:id",
    operationId: "session.get",
    summary: "Get a session",
    tags: ["session"],
    response: Session,
    handler: ({ app, params }) => app.sessions.get(id(params)),
  }),
  route({
    method: "patch",
    path: "/session/:id",
    operationId: "session.update",
    summary: "Change a session's title or permission rules, or archive it (time.archived)",
    tags: ["session"],
    body: SessionUpdateInput,
    response: Session,
    handler: ({ app, params, body }) => app.sessions.update(id(params), body),
  }),
  route({
    method: "delete",
    path: "/session/:id",
    operationId: "session.delete",
    summary: "Delete a session with its messages, todos and child sessions",
    tags: ["session"],
    response: z.boolean(),
    handler: async ({ app, params, server }) => {
      app.sessions.get(id(params))
      server.shells(app).abort(id(params))
      await app.sessions.remove(id(params))
      return true
    },
  }),
  route({
    method: "get",
    path: "/session/:id/children",
    operationId: "session.children",
    summary: "Sessions started by this one (subagent tasks)",
    tags: ["session"],
    response: z.array(Session),
    handler: ({ app, params }) => app.sessions.children(id(params)),
  }),
  route({
    method: "get",
    path: "/session/:id/todo",
    operationId: "session.todo",
    summary: "The session's todo list",
    tags: ["session"],
    response: z.array(Todo),
    handler: ({ app, params }) => app.sessions.todo(id(params)),
  }),
  route({
    method: "get",
    path: "/session/:id/diff",
    operationId: "session.diff",
    summary: "The session's file changes (or one user message's turn), per file: before, after, additions, deletions",
    tags: ["session"],
    query: z.object({ messageID: z.string().optional() }),
    response: z.array(FileDiff),
    handler: ({ app, params, query }) => (app.sessions.get(id(params)), app.snapshots.diff(id(params), query.messageID)),
  }),
  route({
    method: "post",
    path: "/session/:id/abort",
    operationId: "session.abort",
    summary: "Stop the session's running loop or shell command; answers once the loop has stopped (at most 10 s), so a revert or prompt right after finds it idle; false when nothing ran",
    tags: ["session"],
    response: z.boolean(),
    handler: async ({ app, params, server }) => {
      const loop = app.sessions.abort(id(params))
      const shell = server.shells(app).abort(id(params))
      // Stopping kills the running command and closes the step: a client that reverts (the TUI's
      // /undo) or prompts right after the answer would otherwise meet a session still busy.
      if (loop) await app.sessions.stopped(id(params), ABORT_WAIT_MS)
      return loop || shell
    },
  }),
  route({
    method: "post",
    path: "/session/:id/resume",
    operationId: "session.resume",
    summary:
      "Carry on a session whose wright process died while it worked (session/resume.ts). outcome: resumed, stopped (crashed too often in a row), idle (nothing to resume), running (here), busy (another process runs it). With wait, answers once the resumed loop is idle, with its last message",
    tags: ["session"],
    body: z.object({ wait: z.boolean().optional() }).optional(),
    response: z.object({ outcome: z.enum(["resumed", "stopped", "idle", "running", "busy"]), error: z.string().optional(), message: MessageWithParts.optional() }),
    handler: async ({ app, params, body, server }) => {
      app.sessions.get(id(params))
      if (server.shells(app).busy(id(params))) return { outcome: "running" as const }
      const r = app.resume.resume(id(params))
      if (!r.done) return { outcome: r.outcome, ...(r.error ? { error: r.error } : {}) }
      if (!body?.wait) {
        r.done.catch((error) => app.log.error("resume: the run failed", { session: id(params), error }))
        return { outcome: r.outcome }
      }
      await r.done
      const message = app.sessions.messages(id(params), { limit: 1 })[0]
      return { outcome: r.outcome, ...(message ? { message } : {}) }
    },
  }),
  route({
    method: "post",
    path: "/session/:id/fork",
    operationId: "session.fork",
    summary: "Copy the session up to and including a message (all of it without one) into a new session",
    tags: ["session"],
    body: SessionForkInput,
    response: Session,
    handler: ({ app, params, body }) => fork(app, id(params), body),
  }),
  route({
    method: "post",
    path: "/session/:id/summarize",
    operationId: "session.summarize",
    summary: "Compact the session now",
    tags: ["session"],
    body: SessionSummarizeInput,
    response: z.boolean(),
    conflict: true,
    handler: ({ app, params, body, server }) => {
      app.sessions.get(id(params))
      assertIdle(app, server, id(params))
      return app.sessions.summarize(id(params), body)
    },
  }),
  route({
    method: "post",
    path: "/session/:id/revert",
    operationId: "session.revert",
    summary: "Undo from a message (or part) on: hide its messages and put back the files their steps changed; unrevert redoes",
    tags: ["session"],
    body: SessionRevertInput,
    response: Session,
    conflict: true,
    handler: ({ app, params, body, server }) => {
      app.sessions.get(id(params))
      assertIdle(app, server, id(params))
      return revert(app, id(params), body)
    },
  }),
  route({
    method: "post",
    path: "/session/:id/unrevert",
    operationId: "session.unrevert",
    summary: "Undo a revert: the hidden messages show again and their files come back",
    tags: ["session"],
    query: z.object({ force: z.enum(["true", "false"]).optional() }),
    response: Session,
    conflict: true,
    handler: ({ app, params, server, query }) => {
      app.sessions.get(id(params))
      assertIdle(app, server, id(params))
      return unrevert(app, id(params), { force: query.force === "true" })
    },
  }),
]

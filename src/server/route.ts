import type { Context, Hono } from "hono"
import { z } from "zod"
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from "../protocol"
import type { App, Shells } from "../session"

export type Method = "get" | "post" | "patch" | "put" | "delete"

/** The `{name, data}` body of every error answer. */
export const ErrorBody = z.object({ name: z.string(), data: z.record(z.string(), z.unknown()) })

/** What routes may know about the server itself: its projects, their shells, its lifetime. */
export interface ServerContext {
  version: string
  /** The project used when a request names none. */
  directory: string
  getApp(directory: string): Promise<App>
  /** Every App a request has reached so far. */
  apps(): App[]
  /** Called for each App reached for the first time; returns an unsubscribe function. */
  onApp(listener: (app: App) => void): () => void
  /** The user-shell runner of an App. */
  shells(app: App): Shells
  /** Drops a project's App so the next request loads its config afresh (when the host supports it). */
  reloadApp?(directory: string): Promise<void>
  /** Aborted when the server shuts down: event streams end. */
  signal: AbortSignal
  /** Directories that have sessions, most recently used first (GET /project). */
  projects?(): string[]
}

export interface RouteInput<B, Q> {
  app: App
  body: B
  query: Q
  params: Record<string, string>
  c: Context<ServerEnv>
  server: ServerContext
}

/**
 * One HTTP route: its schemas serve both request validation and the OpenAPI document, so
 * the document can never drift from what the server accepts.
 */
export interface Route<B = unknown, Q = unknown> {
  method: Method
  path: string
  operationId: string
  summary: string
  tags?: string[]
  body?: z.ZodType<B>
  query?: z.ZodType<Q>
  response?: z.ZodType
  /** 200 by default; 204 routes return nothing. */
  status?: 200 | 204
  /** Routes that do not belong to a project (health, global events). */
  global?: boolean
  /** The route answers 409 while the session runs. */
  conflict?: boolean
  /** What the route answers with 202 (the handler returns that Response itself): a prompt stored for later. */
  accepted?: { schema: z.ZodType; description: string }
  handler(input: RouteInput<B, Q>): unknown | Promise<unknown>
}

export type ServerEnv = { Variables: { app: App } }

export function route<B = undefined, Q = undefined>(def: Route<B, Q>): Route<B, Q> {
  return def
}

function issuesOf(error: z.ZodError, where: string) {
  return error.issues.map((i) => ({ path: [where, ...i.path.map(String)].join("."), message: i.message }))
}

function invalid(where: string, error: z.ZodError): never {
  const issues = issuesOf(error, where)
  throw new BadRequestError({ message: `Invalid request: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, issues })
}

const MiB = 1 << 20
/** Bodies past this are refused with 413 while they arrive. */
export const BODY_LIMIT = 10 * MiB
/** Prompts carry file parts as data URLs: they get more room. */
export const FILE_BODY_LIMIT = 64 * MiB
// The routes whose bodies hold file parts (by operationId; the route files are the better home).
const FILE_PART_ROUTES = new Set(["session.prompt", "session.prompt_async", "session.command"])
export const mib = (bytes: number) => `${bytes / MiB} MiB`

const JSON_TYPE = /^application\/json\s*(;|$)/i

/**
 * A JSON route's body, read with a byte count so an oversize one is refused (413) once it
 * passes `limit`, however it is sent (Content-Length or chunked), instead of being buffered.
 * Only `application/json` is accepted (415 otherwise: it is what cross-origin forms and
 * "simple" requests cannot send); a request without a body reads as `{}`.
 */
async function readBody(c: Context<ServerEnv>, limit: number): Promise<unknown> {
  const req = c.req.raw
  const what = `${req.method} ${c.req.path}`
  const tooLarge = () => new PayloadTooLargeError({ message: `Body of ${what} is larger than ${mib(limit)}: refused` })
  const type = req.headers.get("content-type")
  if (Number(req.headers.get("content-length") ?? 0) > limit) throw tooLarge()
  if (type !== null && !JSON_TYPE.test(type)) throw new UnsupportedMediaTypeError({ message: `Content-Type "${type}" is refused: send the body of ${what} as application/json` })
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = req.body?.getReader()
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined }
    if (next.done) break
    size += next.value.byteLength
    // The rest is never read: on a port, @hono/node-server drains a little of it, then closes.
    if (size > limit) throw tooLarge()
    chunks.push(next.value)
  }
  const text = Buffer.concat(chunks).toString("utf8")
  if (!text.trim()) return {}
  if (type === null) throw new UnsupportedMediaTypeError({ message: `A body without Content-Type is refused: send the body of ${what} as application/json` })
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new BadRequestError({ message: `Invalid request: body is not valid JSON (${(e as Error).message})`, issues: [{ path: "body", message: "not valid JSON" }] })
  }
}

/**
 * zod compiles a fast path for an object schema on its first parse (~1 ms each), which pays only
 * when the schema parses again and again: a route's first calls (all of a one-shot `run`'s) are
 * checked without it, the later ones with it.
 */
const COMPILE_AFTER = 2

export function register(hono: Hono<ServerEnv>, routes: Route<any, any>[], server: ServerContext) {
  for (const r of routes) {
    const limit = FILE_PART_ROUTES.has(r.operationId) ? FILE_BODY_LIMIT : BODY_LIMIT
    let calls = 0
    hono.on(r.method.toUpperCase(), r.path, async (c) => {
      const parse = ++calls > COMPILE_AFTER ? undefined : { jitless: true }
      let body: unknown = undefined
      if (r.body) {
        const parsed = r.body.safeParse(await readBody(c, limit), parse)
        if (!parsed.success) invalid("body", parsed.error)
        body = parsed.data
      } else if (r.method !== "get") {
        const type = c.req.header("content-type")
        // No body is read here, but a form or text/plain post must not be executed either.
        if (type !== undefined && !JSON_TYPE.test(type))
          throw new UnsupportedMediaTypeError({ message: `Content-Type "${type}" is refused: ${c.req.method} ${c.req.path} takes no body, or JSON` })
      }
      let query: unknown = undefined
      if (r.query) {
        const parsed = r.query.safeParse(c.req.query(), parse)
        if (!parsed.success) invalid("query", parsed.error)
        query = parsed.data
      }
      const result = await r.handler({ app: c.get("app"), body, query, params: c.req.param() as Record<string, string>, c, server })
      if (result instanceof Response) return result
      if (r.status === 204) return c.body(null, 204)
      return c.json(result ?? true)
    })
  }
}

/** OpenAPI 3.1 document built from the route table's zod schemas. */
export function openapi(routes: Route<any, any>[], info: { title: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {}
  const schema = (s: z.ZodType, io: "input" | "output") => {
    const json = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Record<string, unknown>
    delete json.$schema
    return json
  }
  const named = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/NamedError" } } } })
  for (const r of routes) {
    const p = r.path.replace(/:(\w+)/g, "{$1}")
    const parameters: unknown[] = [...r.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }))
    if (r.query) {
      const q = schema(r.query, "input") as { properties?: Record<string, unknown>; required?: string[] }
      for (const [name, s] of Object.entries(q.properties ?? {})) parameters.push({ name, in: "query", required: q.required?.includes(name) ?? false, schema: s })
    }
    if (!r.global) parameters.push({ name: "directory", in: "query", required: false, schema: { type: "string" } })
    ;(paths[p] ??= {})[r.method] = {
      operationId: r.operationId,
      summary: r.summary,
      ...(r.tags ? { tags: r.tags } : {}),
      parameters,
      ...(r.body ? { requestBody: { required: true, content: { "application/json": { schema: schema(r.body, "input") } } } } : {}),
      responses: {
        [String(r.status ?? 200)]: {
          description: r.summary,
          ...(r.response && r.status !== 204 ? { content: { "application/json": { schema: schema(r.response, "output") } } } : {}),
        },
        "400": named("Bad request: the body or query failed validation (data.issues names each field)"),
        ...(r.global ? {} : { "403": named("Forbidden: the directory named is not one this server may open") }),
        ...(r.path.includes(":") ? { "404": named("Not found: an id in the path names nothing") } : {}),
        ...(r.body ? { "413": named("The body is over the size limit"), "415": named("The body is not application/json") } : {}),
        ...(r.conflict ? { "409": named("Busy: the session is running") } : {}),
        ...(r.accepted ? { "202": { description: r.accepted.description, content: { "application/json": { schema: schema(r.accepted.schema, "output") } } } } : {}),
      },
    }
  }
  return {
    openapi: "3.1.0",
    info,
    paths,
    components: {
      schemas: {
        NamedError: schema(ErrorBody, "output"),
      },
    },
  }
}

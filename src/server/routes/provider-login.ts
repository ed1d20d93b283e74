// OpenCode's subscription sign-in routes: `POST /provider/:id/oauth/authorize` starts a sign-in
// in the core and answers what to show the user (`{url, method: "auto", instructions}`);
// `POST /provider/:id/oauth/callback` waits until the user finished (the device code entered on
// GitHub, the browser back on the ChatGPT loopback callback), the login stored in the user's
// auth.json, and every open project re-reads it. `GET /provider/auth` names each provider's
// methods. Tokens never appear in an answer. One pending sign-in per provider and server: a new
// authorize cancels the one before.
import { z } from "zod"
import { checkProviderID } from "../../llm"
import { BadRequestError, NamedError, ProviderAuthError } from "../../protocol"
import { route, type ServerContext } from "../route"

type Pending = { done: Promise<void>; cancel(): void }
const pendingBy = new WeakMap<ServerContext, Map<string, Pending>>()
const pendingOf = (server: ServerContext) => {
  let map = pendingBy.get(server)
  if (!map) pendingBy.set(server, (map = new Map()))
  return map
}

const Method = z.object({ method: z.number().int().min(0).optional() }).passthrough()
const Authorization = z.object({ url: z.string(), method: z.enum(["auto", "code"]), instructions: z.string() })
const AuthMethod = z.object({ type: z.enum(["oauth", "api"]), label: z.string() })

/** The sign-ins the core runs; `method` in the bodies is the index of the oauth method below. */
const METHODS: Record<string, z.infer<typeof AuthMethod>[]> = {
  "github-copilot": [{ type: "oauth", label: "Sign in with GitHub Copilot" }],
  openai: [
    { type: "oauth", label: "ChatGPT Plus/Pro (browser sign-in)" },
    { type: "api", label: "API key" },
  ],
}

export const providerLoginRoutes = [
  route({
    method: "get",
    path: "/provider/auth",
    operationId: "provider.auth",
    summary: "The sign-in methods of the providers that have one besides an API key",
    tags: ["provider"],
    response: z.record(z.string(), z.array(AuthMethod)),
    handler: () => METHODS,
  }),
  route({
    method: "post",
    path: "/provider/:providerID/oauth/authorize",
    operationId: "provider.oauth.authorize",
    summary: "Start a subscription sign-in (GitHub Copilot, ChatGPT): the page to open and what to do there",
    tags: ["provider"],
    body: Method,
    response: Authorization,
    handler: async ({ app, params, server }) => {
      const providerID = params.providerID!
      checkProviderID(providerID)
      const pending = pendingOf(server)
      pending.get(providerID)?.cancel()
      const login = await app.providers.startLogin(providerID)
      const done = login.done.then(() => {
        for (const other of server.apps()) if (other !== app) other.providers.refresh()
      })
      done.catch(() => {}).finally(() => pending.get(providerID) === entry && pending.delete(providerID))
      const entry = { done, cancel: login.cancel }
      pending.set(providerID, entry)
      return { url: login.url, method: "auto" as const, instructions: login.instructions }
    },
  }),
  route({
    method: "post",
    path: "/provider/:providerID/oauth/callback",
    operationId: "provider.oauth.callback",
    summary: "Wait for the sign-in started by authorize to finish; true once the login is stored",
    tags: ["provider"],
    body: Method,
    response: z.boolean(),
    handler: async ({ params, server }) => {
      const pending = pendingOf(server).get(params.providerID!)
      if (!pending) throw new BadRequestError({ message: `No sign-in for ${params.providerID} is under way: start one with POST /provider/${params.providerID}/oauth/authorize` })
      await pending.done.catch((e: Error) => {
        // The listener's own failures (timeout, a refusal, cancelled) are the user's to read, not a 500.
        throw e instanceof NamedError ? e : new ProviderAuthError({ providerID: params.providerID!, message: `The sign-in did not finish: ${e.message}` })
      })
      return true
    },
  }),
]

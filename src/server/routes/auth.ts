// OpenCode's `PUT /auth/:providerID` (`{type: "api", key}`) and `DELETE /auth/:providerID`:
// the user's stored provider keys. The store is the user's, shared by every project, so
// each project this server has opened re-reads it. The key goes in; it never comes back out
// (the answer is `true`, errors name the provider, never the key).
import { z } from "zod"
import { checkProviderID } from "../../llm"
import { route, type RouteInput } from "../route"

const ApiAuth = z.object({ type: z.literal("api"), key: z.string().min(1).max(10_000).regex(/^\S+$/, "must not hold spaces or line breaks") })

/** Writes through the requesting project's providers, then has every other open project re-read the store. */
function save({ app, params, server }: RouteInput<unknown, unknown>, key: string | undefined) {
  const providerID = params.providerID!
  checkProviderID(providerID)
  app.providers.saveKey(providerID, key)
  for (const other of server.apps()) if (other !== app) other.providers.refresh()
  return true
}

export const authRoutes = [
  route({
    method: "put",
    path: "/auth/:providerID",
    operationId: "auth.set",
    summary: "Store a provider's API key in the user's auth.json (mode 0600); every open project uses it from the next model call",
    tags: ["auth"],
    body: ApiAuth,
    response: z.boolean(),
    handler: (input) => save(input, input.body.key),
  }),
  route({
    method: "delete",
    path: "/auth/:providerID",
    operationId: "auth.remove",
    summary: "Remove a provider's stored API key from the user's auth.json",
    tags: ["auth"],
    response: z.boolean(),
    handler: (input) => save(input, undefined),
  }),
]

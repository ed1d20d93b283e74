// What a provider signed in by subscription gets instead of a key: a fetch that carries the
// fresh access token (refreshed under the lock of tokens.ts), and for ChatGPT the Codex backend
// as its base URL. The provider registry asks here before building the provider's SDK.
import { OAUTH_KEY } from "../auth"
import { copilotFetch, refreshCopilot } from "./copilot"
import { chatgptFetch, refreshChatGPT } from "./chatgpt"
import { tokenSource } from "./tokens"
import { loginURLs } from "./urls"

/** The SDK options of a provider whose stored credential is a login; undefined for any other provider. */
export function loginOptions(providerID: string, deps: { file: string; env: NodeJS.ProcessEnv; fetch: typeof fetch }): Record<string, unknown> | undefined {
  const { file, env } = deps
  // Token requests go out on the plain fetch: the provider's timeouts are for model calls.
  const plain = { env, fetch: deps.fetch }
  if (providerID === "github-copilot") {
    const token = tokenSource({ file, providerID, refresh: refreshCopilot(plain) })
    return { apiKey: OAUTH_KEY, fetch: copilotFetch(token, deps.fetch) }
  }
  if (providerID === "openai") {
    const token = tokenSource({ file, providerID, refresh: refreshChatGPT(plain) })
    // The Responses API, whatever `chatCompletions` says: the Codex backend serves nothing else.
    return { apiKey: OAUTH_KEY, baseURL: loginURLs(env).chatgpt, chatCompletions: false, fetch: chatgptFetch(token, deps.fetch) }
  }
  return undefined
}

// One entry point for a front end that signs in through the core (the TUI's /connect, any
// client of `POST /provider/:id/oauth/authorize`): what to show the user, and the login once it
// is done. `wright auth login` runs the same flows in its own terminal (cli/auth/sign-in.ts).
import { ProviderAuthError } from "../../protocol"
import type { OAuthEntry } from "../auth"
import { startChatGPTLogin } from "./chatgpt"
import { finishCopilotLogin, startCopilotLogin } from "./copilot"

export interface LoginStart {
  /** The page the user opens. */
  url: string
  /** What to do there (the device code to enter, or "sign in in the browser"). */
  instructions: string
  /** The login, once the user finished; rejects with a message for the user. */
  entry: Promise<OAuthEntry>
  /** Gives up the sign-in (its listener closes, its polling stops at the next poll). */
  cancel(): void
}

export async function startLogin(providerID: string, deps: { env: NodeJS.ProcessEnv; fetch?: typeof fetch }): Promise<LoginStart> {
  if (providerID === "github-copilot") {
    const code = await startCopilotLogin(deps)
    let cancelled = false
    const sleep = (ms: number) =>
      new Promise<void>((resolve, reject) => setTimeout(() => (cancelled ? reject(new Error("the sign-in was cancelled")) : resolve()), ms))
    const entry = finishCopilotLogin(code, { ...deps, sleep })
    entry.catch(() => {})
    return { url: code.verificationUri, instructions: `Enter the code ${code.userCode}`, entry, cancel: () => void (cancelled = true) }
  }
  if (providerID === "openai") {
    const login = await startChatGPTLogin(deps)
    return { url: login.url, instructions: "Sign in to ChatGPT in your browser; this finishes when it comes back", entry: login.done, cancel: login.cancel }
  }
  throw new ProviderAuthError({ providerID, message: `"${providerID}" has no sign-in: GitHub Copilot (github-copilot) and ChatGPT (openai) do; other providers take an API key` })
}

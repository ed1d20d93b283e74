// Where the subscription logins talk to. Each base URL has a variable that points it elsewhere:
// these are TEST HOOKS (the tests run fakes of GitHub and OpenAI on loopback), not settings;
// they are read from the App's environment, which a project cannot set.
//   WRIGHT_GITHUB_URL            https://github.com                     device code, token polling
//   WRIGHT_GITHUB_API_URL        https://api.github.com                 Copilot token exchange
//   WRIGHT_OPENAI_AUTH_URL       https://auth.openai.com                ChatGPT authorize, token, refresh
//   WRIGHT_CHATGPT_URL           https://chatgpt.com/backend-api/codex  ChatGPT's Responses API
//   WRIGHT_OPENAI_CALLBACK_PORT  1455 (0: any free port)                the loopback callback

export interface LoginURLs {
  github: string
  githubApi: string
  openaiAuth: string
  chatgpt: string
  callbackPort: number
}

/** OpenAI registered this redirect for Codex's client id: the port and path cannot change. */
export const CHATGPT_CALLBACK_PORT = 1455
/** Copilot's API when the token exchange names none. */
export const COPILOT_API = "https://api.githubcopilot.com"

export function loginURLs(env: NodeJS.ProcessEnv): LoginURLs {
  const url = (name: string, fallback: string) => (env[name] || fallback).replace(/\/+$/, "")
  const port = env.WRIGHT_OPENAI_CALLBACK_PORT
  return {
    github: url("WRIGHT_GITHUB_URL", "https://github.com"),
    githubApi: url("WRIGHT_GITHUB_API_URL", "https://api.github.com"),
    openaiAuth: url("WRIGHT_OPENAI_AUTH_URL", "https://auth.openai.com"),
    chatgpt: url("WRIGHT_CHATGPT_URL", "https://chatgpt.com/backend-api/codex"),
    callbackPort: port !== undefined && /^\d+$/.test(port) ? Number(port) : CHATGPT_CALLBACK_PORT,
  }
}

// `wright auth login github-copilot` and `wright auth login chatgpt`: the subscription sign-ins
// (llm/login/), run here in the terminal, their tokens stored in wright's auth.json (0600) as
// `type: "oauth"`. Neither prints a token.
import { finishCopilotLogin, startChatGPTLogin, startCopilotLogin, writeEntry } from "../../llm"
import { openBrowser } from "../browser"
import { bold, dim, green, UserError } from "../ui"

const out = (s: string) => void process.stdout.write(s)

/** GitHub's device flow: the code and the page are printed, then GitHub is polled until the user entered it. */
export async function signInCopilot(file: string) {
  const env = process.env
  const code = await startCopilotLogin({ env })
  out(`Open ${bold(code.verificationUri)} and enter the code ${bold(code.userCode)}\n`)
  out(dim(`Waiting for GitHub (the code is valid for ${Math.round(code.expiresIn / 60)} minutes)…\n`))
  const entry = await finishCopilotLogin(code, { env })
  writeEntry(file, "github-copilot", entry)
  out(`${green("Signed in")} to ${bold("GitHub Copilot")}: stored in ${file}. Its models are github-copilot/… (\`wright models github-copilot\`)\n`)
}

/** OpenAI's browser sign-in: the page is opened (and printed), the browser comes back to 127.0.0.1:1455. */
export async function signInChatGPT(file: string, opts: { open: boolean }) {
  const env = process.env
  const login = await startChatGPTLogin({ env }).catch((e: Error) => {
    throw e.name === "Error" ? new UserError(`ChatGPT sign-in: ${e.message}`) : e
  })
  const stop = () => login.cancel()
  process.once("SIGINT", stop)
  try {
    out(`Sign in to ChatGPT in your browser: ${login.url}\n`)
    if (opts.open) await openBrowser(login.url, process.cwd())
    out(dim("Waiting for the browser to come back…\n"))
    // The listener's own failures (port in use, timeout, a refusal) are the user's to act on.
    const entry = await login.done.catch((e: Error) => {
      throw e.name === "Error" ? new UserError(`ChatGPT sign-in: ${e.message}`) : e
    })
    writeEntry(file, "openai", entry)
    out(`${green("Signed in")} to ${bold("ChatGPT")}${entry.accountId ? "" : " (no account id in the token)"}: stored in ${file}. openai/… models now use your plan\n`)
  } finally {
    process.off("SIGINT", stop)
  }
}

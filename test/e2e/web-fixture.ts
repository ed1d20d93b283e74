// Shared by the web UI tests: the BUILT `wright web` on a free loopback port, a headless
// Chromium (Debian's `chromium`, driven by playwright-core as test/e2e/browser.test.ts does)
// and the scripted model.
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core"
import { afterAll, afterEach, beforeAll } from "vitest"
import { providerConfig, sandbox, spawnWright, waitForOutput, writeConfig, type Sandbox } from "../lib/e2e"
import { startLLMServer, type LLMServer } from "../lib/llm-server"
import { chromiumPath, requires } from "../lib/requires"
import { stopServe, type Served } from "./serve-helpers"

export type Web = Served & { link: string }
export type ContextOptions = Parameters<Browser["newContext"]>[0]

/** Hooks for a test file: the model, the browser, and cleanup after each test. */
export function useWeb() {
  const noChromium = requires("chromium")
  let llm: LLMServer
  let browser: Browser
  const cleanup: (() => Promise<unknown>)[] = []
  beforeAll(async () => {
    if (noChromium) return
    llm = await startLLMServer({ strict: false })
    browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, chromiumSandbox: false })
  }, 60_000)
  afterEach(async () => {
    for (const close of cleanup.splice(0).reverse()) await close().catch(() => {})
    llm?.reset()
  })
  afterAll(async () => {
    await browser?.close()
    await llm?.close()
  })

  function project(config: Record<string, unknown> = {}): Sandbox {
    const box = sandbox()
    writeConfig(box.project, { ...providerConfig(llm, "openai-chat"), ...config })
    return box
  }

  /** `wright web` (or `serve --web`) on a free loopback port; its URL and first pairing link. */
  async function startWeb(box: Sandbox, args: string[] = [], env: NodeJS.ProcessEnv = {}, how: "web" | "serve" = "web"): Promise<Web> {
    const child = spawnWright([...(how === "web" ? ["web"] : ["serve", "--web"]), "--port", "0", ...args], { cwd: box.project, env: { ...box.env, ...env } })
    const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`web exited (${code}): ${child.output.stderr}`))))
    await Promise.race([waitForOutput(child, (o) => /Pairing link[^:]*: (http:\/\/\S+)\n/.test(o.stdout)), exited])
    const url = /listening on (http:\/\/\S+)\n/.exec(child.output.stdout)![1]!
    const link = /Pairing link[^:]*: (http:\/\/\S+)\n/.exec(child.output.stdout)![1]!
    const web = Object.assign(child, { url, link })
    cleanup.push(() => stopServe(web))
    return web
  }

  async function context(opts: ContextOptions = {}): Promise<BrowserContext> {
    const c = await browser.newContext(opts)
    cleanup.push(() => c.close())
    return c
  }

  /** A browser that opened the pairing link: the app with its session list. */
  async function paired(web: Web, opts: ContextOptions = {}): Promise<Page> {
    const page = await (await context(opts)).newPage()
    await page.goto(web.link)
    // Attached, not visible: on a phone the list is a closed drawer. The list is filled once the
    // projects are fetched: a test that reads it at once must not find it empty.
    await page.locator('nav[aria-label="Sessions"]').waitFor({ state: "attached" })
    await page.locator('nav[aria-label="Sessions"] button[aria-label^="New session in "]').first().waitFor({ state: "attached", timeout: 30_000 })
    return page
  }

  return { noChromium, llm: () => llm, project, startWeb, context, paired }
}

export const cookieOf = async (page: Page) => (await page.context().cookies()).find((c) => c.name.startsWith("wright_"))!

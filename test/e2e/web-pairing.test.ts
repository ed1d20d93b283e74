// `wright web` pairing end to end (the BUILT binary, a real headless Chromium): a link works
// once and only for 5 minutes (shortened here with WRIGHT_PAIR_TTL_MS, which only tests set),
// a browser without the cookie gets nothing, a cookie cannot be used across origins or to mint
// more links, and the password still works.
import { readdirSync, statSync } from "node:fs"
import path from "node:path"
import type { Page } from "playwright-core"
import { expect, test as base, vi } from "vitest"
import { wright } from "../lib/e2e"
import { send } from "./serve-helpers"
import { cookieOf, useWeb } from "./web-fixture"

const { noChromium, project, startWeb, context, paired } = useWeb()
const test = base.skipIf(noChromium)
vi.setConfig({ testTimeout: 60_000 })

test("web - a pairing link works once and expires; an unpaired browser, a used or expired link get nothing", async () => {
  const box = project()
  // Long enough for a loaded machine to open a browser context and the link printed at start
  // (with 1.5 s the first pairing itself could come too late); the wait below follows it.
  const ttl = 6000
  const web = await startWeb(box, [], { WRIGHT_PAIR_TTL_MS: String(ttl) })
  const port = new URL(web.url).port
  // The link pairs one browser: an HttpOnly, SameSite=Strict cookie for this port.
  const page = await paired(web)

  // Unpaired: the page says how to pair, and the API answers 401.
  const stranger = await (await context()).newPage()
  const first = await stranger.goto(web.url)
  expect(first!.status()).toBe(401)
  expect(await stranger.textContent("body")).toContain("not paired")
  const unpaired = (p: Page) => p.context().cookies().then((c) => c.map((x) => `${x.name}=${x.value}`).join("; "))
  const statusWith = async (p: Page, pathname: string) => (await send(web.url, "GET", pathname, { headers: { cookie: await unpaired(p) } })).status
  expect(await statusWith(stranger, "/session")).toBe(401)
  expect(await statusWith(stranger, "/web/assets/app.js")).toBe(401)

  const cookie = await cookieOf(page)
  expect(cookie).toMatchObject({ name: `wright_${port}`, httpOnly: true, sameSite: "Strict" })
  expect(await page.evaluate(() => document.cookie)).toBe("")

  // The same link again, in another browser: refused, and that browser stays unpaired.
  const again = await (await context()).newPage()
  expect((await again.goto(web.link))!.status()).toBe(403)
  expect(await again.textContent("body")).toContain("already used or has expired")
  expect(await again.context().cookies()).toEqual([])
  expect(await statusWith(again, "/session")).toBe(401)

  // A fresh link from `wright web pair`, left past its life: refused.
  const pair = await wright(["web", "pair"], { cwd: box.project, env: box.env })
  expect(pair.code, pair.stderr).toBe(0)
  const late = /http:\/\/\S+\/pair\?code=\S+/.exec(pair.stdout)![0]
  // The code was minted before `wright web pair` printed it: past its life once ttl has passed.
  await new Promise((r) => setTimeout(r, ttl + 500))
  const expired = await (await context()).newPage()
  expect((await expired.goto(late))!.status()).toBe(403)
  expect(await expired.context().cookies()).toEqual([])
  expect(await statusWith(expired, "/session")).toBe(401)

  // The state file `wright web pair` read is this user's alone.
  const dir = path.join(box.home, "state", "wright", "web")
  expect(statSync(path.join(dir, readdirSync(dir)[0]!)).mode & 0o777).toBe(0o600)
})

test("web - a pairing cookie changes nothing from another origin or without one, and cannot mint links; devices are listed and revoked", async () => {
  const box = project()
  const web = await startWeb(box)
  const page = await paired(web)
  const port = Number(new URL(web.url).port)
  const cookie = `${(await cookieOf(page)).name}=${(await cookieOf(page)).value}`
  // The cookie alone, as a server on another port of this host would receive it from the
  // browser (cookies ignore ports), opens nothing: the page's key lives in its own origin.
  expect((await send(web.url, "GET", "/session", { headers: { cookie, origin: `http://127.0.0.1:${port}` } })).status).toBe(401)
  expect((await send(web.url, "GET", "/global/event", { headers: { cookie } })).status).toBe(401)
  const key = (await page.evaluate(() => localStorage.getItem("wright.key")))!
  expect(key).toMatch(/^[\w-]{20,}$/)
  const json = { cookie, "x-wright-key": key, "content-type": "application/json" }

  expect((await send(web.url, "GET", "/session", { headers: { cookie, "x-wright-key": key } })).status).toBe(200)
  // Another loopback port is another origin, though the browser sends it the same cookie.
  expect((await send(web.url, "POST", "/session", { headers: { ...json, origin: `http://127.0.0.1:${port + 1}` }, body: "{}" })).status).toBe(403)
  expect((await send(web.url, "POST", "/session", { headers: json, body: "{}" })).status).toBe(403)
  expect((await send(web.url, "POST", "/session", { headers: { ...json, origin: `http://127.0.0.1:${port}` }, body: "{}" })).status).toBe(200)
  // A cookie cannot mint pairing links; neither can a wrong admin token.
  expect((await send(web.url, "POST", "/web/pair", { headers: { cookie, "x-wright-key": key, origin: `http://127.0.0.1:${port}` } })).status).toBe(403)
  expect((await send(web.url, "POST", "/web/pair", { headers: { "x-wright-admin": "guess" } })).status).toBe(401)

  const listed = await wright(["web", "devices"], { cwd: box.project, env: box.env })
  const id = /^(dev_\S+)/m.exec(listed.stdout)?.[1]
  expect(id, listed.stdout + listed.stderr).toBeDefined()
  const revoked = await wright(["web", "revoke", id!], { cwd: box.project, env: box.env })
  expect(revoked.code, revoked.stderr).toBe(0)
  expect((await send(web.url, "GET", "/session", { headers: { cookie, "x-wright-key": key } })).status).toBe(401)
  // The revoked browser's open event stream ended with it, and it cannot reconnect.
  await page.getByLabel("reconnecting").waitFor({ timeout: 30_000 })
})

test("web - serve --web serves the UI behind pairing too", async () => {
  const box = project()
  const served = await startWeb(box, [], {}, "serve")
  expect((await send(served.url, "GET", "/", { headers: { accept: "text/html" } })).status).toBe(401)
  const page = await paired(served)
  await page.getByRole("textbox", { name: "Prompt" }).waitFor({ state: "detached" })
  // The list fills in once the projects are fetched: wait for it rather than read it at once.
  await page.locator('nav[aria-label="Sessions"]', { hasText: "project" }).waitFor({ timeout: 10_000 })
})

test("web - the password works instead of pairing, and without either the page is refused", async () => {
  const box = project()
  const web = await startWeb(box, [], { WRIGHT_SERVER_PASSWORD: "correct horse" })
  // What a browser without either gets: the basic-auth challenge (it shows its password dialog).
  const answer = await send(web.url, "GET", "/", { headers: { accept: "text/html" } })
  expect(answer.status).toBe(401)
  expect(answer.headers["www-authenticate"]).toContain("Basic")

  const page = await (await context({ httpCredentials: { username: "wright", password: "correct horse" } })).newPage()
  expect((await page.goto(web.url))!.status()).toBe(200)
  const nav = page.getByRole("navigation", { name: "Sessions" })
  await expect.poll(() => nav.textContent(), { timeout: 10_000 }).toContain("project")
  expect(await cookieOf(page)).toBeUndefined()
})

// webfetch played by an attacker: a page the model may fetch redirects, or a name resolves,
// to loopback, private or cloud-metadata addresses. `site` stands for a public web site (a
// rule names it, as a user would to fetch a local dev server); `internal` stands for a
// service that must never be reached (an admin port, the metadata endpoint). It listens
// on `::`, so IPv4, IPv6 and IPv4-mapped spellings of loopback all reach it.
import http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { runTool } from "../../src/tool"
import { createWebfetch, webfetch } from "../../src/tool/webfetch"
import { ruledContext } from "./ruled-context"

let site: http.Server
let internal: http.Server
let A = 0
let B = 0
let SITE = ""
const siteHits: string[] = []
const internalHits: string[] = []

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x")
    siteHits.push(url.pathname)
    if (url.pathname === "/to") return void res.writeHead(302, { location: url.searchParams.get("u") ?? "/" }).end()
    if (url.pathname === "/loop") return void res.writeHead(301, { location: "/loop" }).end()
    res.writeHead(200, { "content-type": "text/plain" }).end(`site ${url.pathname}`)
  })
  internal = http.createServer((req, res) => {
    internalHits.push(req.url ?? "/")
    res.writeHead(200, { "content-type": "text/plain" }).end("internal secret")
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  await new Promise<void>((resolve) => internal.listen(0, "::", resolve))
  A = (site.address() as AddressInfo).port
  B = (internal.address() as AddressInfo).port
  SITE = `http://127.0.0.1:${A}`
})

afterAll(async () => {
  for (const s of [site, internal]) {
    s.closeAllConnections()
    await new Promise((resolve) => s.close(resolve))
  }
})

beforeEach(() => {
  siteHits.length = 0
  internalHits.length = 0
})

/** The user's rules: the site is named, so fetching it is allowed although it is on loopback. */
const siteRules = () => ({ webfetch: { [`${SITE}/*`]: "allow" } })
const redirectTo = (url: string) => `${SITE}/to?u=${encodeURIComponent(url)}`

describe("webfetch guard", () => {
  it("webfetch guard - a rule naming the site lets it be fetched, and a redirect within it is followed and asked", async () => {
    const ctx = ruledContext({ rules: siteRules() })
    const result = await runTool(webfetch, { url: redirectTo(`${SITE}/landing`) }, ctx)
    expect(result.output).toBe("site /landing")
    expect(siteHits).toEqual(["/to", "/landing"])
    expect(ctx.asks.map((a) => [a.permission, a.patterns])).toEqual([
      ["webfetch", [redirectTo(`${SITE}/landing`)]],
      ["webfetch", [`${SITE}/landing`]],
    ])
  })

  it("webfetch guard - a redirect from the allowed site to another loopback port is refused; the internal service is never reached", async () => {
    const ctx = ruledContext({ rules: siteRules() })
    const target = `http://127.0.0.1:${B}/admin`
    const error = await runTool(webfetch, { url: redirectTo(target) }, ctx).catch((e: Error) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain(`refused ${target}`)
    expect((error as Error).message).toContain("loopback")
    expect((error as Error).message).toContain(`"webfetch": {"http://127.0.0.1:${B}/*": "allow"}`)
    expect(internalHits).toEqual([])
  })

  it("webfetch guard - a redirect to the cloud metadata address is refused", async () => {
    const ctx = ruledContext({ rules: siteRules() })
    const error = await runTool(webfetch, { url: redirectTo("http://169.254.169.254/latest/meta-data/iam/"), timeout: 3 }, ctx).catch((e: Error) => e)
    expect((error as Error).message).toContain("refused http://169.254.169.254/latest/meta-data/iam/")
    expect((error as Error).message).toContain("cloud metadata")
  })

  it("webfetch guard - a redirect to a URL a deny rule names is refused before it is requested", async () => {
    const ctx = ruledContext({ rules: { webfetch: { [`${SITE}/*`]: "allow", [`${SITE}/private/*`]: "deny" } } })
    const error = await runTool(webfetch, { url: redirectTo("/private/keys") }, ctx).catch((e: Error) => e)
    expect((error as Error).name).toBe("PermissionDeniedError")
    expect(siteHits).toEqual(["/to"])
  })

  it("webfetch guard - a redirect to a public URL a deny rule names is refused", async () => {
    const ctx = ruledContext({ rules: { webfetch: { [`${SITE}/*`]: "allow", "https://evil.example/*": "deny" } } })
    const error = await runTool(webfetch, { url: redirectTo("https://evil.example/collect?k=1") }, ctx).catch((e: Error) => e)
    expect((error as Error).name).toBe("PermissionDeniedError")
    expect(ctx.asks.at(-1)).toMatchObject({ permission: "webfetch", patterns: ["https://evil.example/collect?k=1"] })
  })

  it("webfetch guard - a redirect to another scheme is refused", async () => {
    const ctx = ruledContext({ rules: siteRules() })
    await expect(runTool(webfetch, { url: redirectTo("file:///etc/passwd") }, ctx)).rejects.toThrow("file:///etc/passwd")
  })

  it("webfetch guard - redirects stop after 10 hops", async () => {
    const ctx = ruledContext({ rules: siteRules() })
    await expect(runTool(webfetch, { url: `${SITE}/loop` }, ctx)).rejects.toThrow("more than 10 redirects")
    expect(siteHits.length).toBe(11)
  })

  const spellings = () => [
    `http://127.0.0.1:${B}/`,
    `http://2130706433:${B}/`,
    `http://0x7f.1:${B}/`,
    `http://0177.0.0.1:${B}/`,
    `http://127.1:${B}/`,
    `http://0:${B}/`,
    `http://0.0.0.0:${B}/`,
    `http://[::]:${B}/`,
    `http://[::1]:${B}/`,
    `http://[::ffff:127.0.0.1]:${B}/`,
    `http://[0:0:0:0:0:ffff:7f00:1]:${B}/`,
    `http://localhost:${B}/`,
    `http://LOCALHOST.:${B}/`,
  ]

  it("webfetch guard - loopback in any spelling is refused under the default rules and a bare * rule", async () => {
    for (const rules of [undefined, { webfetch: "allow" }, { webfetch: { "*": "allow", "http://*": "allow" } }]) {
      for (const url of spellings()) {
        const ctx = ruledContext({ rules })
        await expect(runTool(webfetch, { url, timeout: 3 }, ctx), url).rejects.toThrow(/refused .*(loopback|unspecified)/)
      }
    }
    expect(internalHits).toEqual([])
  })

  it("webfetch guard - private, link-local and metadata addresses and names are refused", async () => {
    const urls = [
      "http://10.0.0.1/",
      "http://172.16.5.4/",
      "http://192.168.1.1/",
      "http://100.64.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00:ec2::254]/latest/meta-data/",
      "http://[::ffff:169.254.169.254]/",
      "http://[fe80::1]/",
      "http://[fc00::1]/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://metadata/",
    ]
    for (const url of urls) {
      const ctx = ruledContext()
      await expect(runTool(webfetch, { url, timeout: 2 }, ctx), url).rejects.toThrow(/refused .*(private|link-local|cloud metadata)/)
    }
  })

  it("webfetch guard - a rule naming a loopback host allows exactly that host and port", async () => {
    const v4 = ruledContext({ rules: { webfetch: { [`http://127.0.0.1:${B}/*`]: "allow" } } })
    expect((await runTool(webfetch, { url: `http://127.0.0.1:${B}/ok` }, v4)).output).toBe("internal secret")
    const v6 = ruledContext({ rules: { webfetch: { [`http://[::1]:${B}/*`]: "allow" } } })
    expect((await runTool(webfetch, { url: `http://[::1]:${B}/ok` }, v6)).output).toBe("internal secret")
    expect(internalHits).toEqual(["/ok", "/ok"])
    // The rule names 127.0.0.1:B, not localhost, nor [::1], nor another port.
    for (const url of [`http://localhost:${B}/`, `http://[::1]:${B}/`, `http://127.0.0.1:${A}/`]) {
      await expect(runTool(webfetch, { url, timeout: 3 }, ruledContext({ rules: { webfetch: { [`http://127.0.0.1:${B}/*`]: "allow" } } })), url).rejects.toThrow("refused")
    }
    expect(internalHits).toEqual(["/ok", "/ok"])
  })

  it("webfetch guard - a named rule that asks puts the private address to the user", async () => {
    const rules = { webfetch: { [`http://127.0.0.1:${B}/*`]: "ask" } }
    const yes = ruledContext({ rules, reply: () => "once" })
    expect((await runTool(webfetch, { url: `http://127.0.0.1:${B}/yes` }, yes)).output).toBe("internal secret")
    // One question, and "always" would approve this origin, not every URL.
    expect(yes.asked.map((r) => [r.patterns, r.always])).toEqual([[[`http://127.0.0.1:${B}/yes`], [`http://127.0.0.1:${B}/*`]]])
    const no = ruledContext({ rules, reply: () => "reject" })
    await expect(runTool(webfetch, { url: `http://127.0.0.1:${B}/no` }, no)).rejects.toThrow()
    expect(internalHits).toEqual(["/yes"])
  })

  it("webfetch guard - URLs with credentials are refused", async () => {
    const ctx = ruledContext({ rules: { webfetch: { [`http://127.0.0.1:${B}/*`]: "allow" } } })
    await expect(runTool(webfetch, { url: `http://127.0.0.1:${B}@10.0.0.1/` }, ctx)).rejects.toThrow("user name or password")
    expect(ctx.asks).toEqual([])
  })
})

describe("webfetch guard at connect time", () => {
  it("webfetch guard - a name that resolves to loopback when the connection is made is refused (DNS rebinding)", async () => {
    const answers = ["93.184.216.34", "127.0.0.1"]
    let calls = 0
    const tool = createWebfetch({ lookup: async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }] })
    const ctx = ruledContext({ rules: { webfetch: { "*": "allow" } } })
    await expect(runTool(tool, { url: `http://rebind.example:${B}/`, timeout: 3 }, ctx)).rejects.toThrow(
      /refused http:\/\/rebind\.example:\d+\/: rebind\.example resolves to 127\.0\.0\.1, a loopback address/,
    )
    expect(calls).toBeGreaterThanOrEqual(1)
    expect(internalHits).toEqual([])
  })

  it("webfetch guard - a name that resolves to private and public addresses is refused", async () => {
    const tool = createWebfetch({ lookup: async () => [{ address: "93.184.216.34", family: 4 }, { address: "::ffff:10.1.2.3", family: 6 }] })
    await expect(runTool(tool, { url: "http://mixed.example/", timeout: 3 }, ruledContext())).rejects.toThrow("10.1.2.3")
  })

  it("webfetch guard - a rule naming the host lets a name with a private address through", async () => {
    const tool = createWebfetch({ lookup: async () => [{ address: "127.0.0.1", family: 4 }] })
    const ctx = ruledContext({ rules: { webfetch: { [`http://devbox.internal:${B}/*`]: "allow" } } })
    expect((await runTool(tool, { url: `http://devbox.internal:${B}/dev` }, ctx)).output).toBe("internal secret")
    expect(internalHits).toEqual(["/dev"])
  })
})

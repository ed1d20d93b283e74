// `wright serve --mdns`, the built binary: advertised on loopback when asked for explicitly and
// found by an mDNS browser (bonjour-service), advertised on 0.0.0.0 with a password, refused
// without one on a network bind (--insecure or not), and a bad --mdns-domain named.
import { Bonjour, type Service } from "bonjour-service"
import { afterAll, expect, test } from "vitest"
import { sandbox, waitForOutput, wright } from "../lib/e2e"
import { startServe, stopServe, type Served } from "./serve-helpers"

const browser = new Bonjour()
const running: Served[] = []
afterAll(async () => {
  for (const s of running) await stopServe(s)
  browser.destroy()
})

function find(name: string, timeoutMs = 15_000): Promise<Service> {
  return new Promise((resolve, reject) => {
    const b = browser.find({ type: "http" }, (s) => {
      if (s.name !== name) return
      clearTimeout(timer)
      b.stop()
      resolve(s)
    })
    const timer = setTimeout(() => (b.stop(), reject(new Error(`no mDNS service ${name}`))), timeoutMs)
  })
}

test("mdns - on loopback, when asked for, the server is advertised and found with its port and domain", async () => {
  const box = sandbox()
  const served = await startServe(box, ["--hostname", "127.0.0.1", "--mdns", "--mdns-domain", "mybox.local"])
  running.push(served)
  await waitForOutput(served, (o) => o.stdout.includes("mDNS: advertised as"))
  const port = Number(new URL(served.url).port)
  expect(served.output.stdout).toContain(`mDNS: advertised as wright-${port} (_http._tcp) at mybox.local:${port}`)
  const found = await find(`wright-${port}`)
  expect(found).toMatchObject({ port, host: "mybox.local", txt: { app: "wright", path: "/", auth: "none" } })
  await stopServe(served)
}, 60_000)

test("mdns - on 0.0.0.0 with a password it is advertised; without one it is refused, --insecure or not", async () => {
  const box = sandbox()
  const served = await startServe(box, ["--mdns"], { WRIGHT_SERVER_PASSWORD: "hunter2-long-enough" })
  running.push(served)
  expect(served.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/)
  const port = Number(new URL(served.url).port)
  await waitForOutput(served, (o) => o.stdout.includes("mDNS: advertised as"))
  expect(await find(`wright-${port}`)).toMatchObject({ port, host: "wright.local", txt: { auth: "basic" } })
  await stopServe(served)

  const open = await wright(["serve", "--port", "0", "--mdns"], { cwd: box.project, env: box.env })
  expect(open.code).toBe(1)
  expect(open.stderr).toContain("Refusing to listen on 0.0.0.0 without a password")
  const insecure = await wright(["serve", "--port", "0", "--mdns", "--insecure"], { cwd: box.project, env: box.env })
  expect(insecure.code).toBe(1)
  expect(insecure.stderr).toContain("--mdns: refusing to advertise a server without a password on 0.0.0.0")
  const badDomain = await wright(["serve", "--port", "0", "--hostname", "127.0.0.1", "--mdns", "--mdns-domain", "not a domain"], { cwd: box.project, env: box.env })
  expect(badDomain.code).toBe(1)
  expect(badDomain.stderr).toContain('--mdns-domain: expected a .local host name such as wright.local, received "not a domain"')
}, 120_000)

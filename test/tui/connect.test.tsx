// /connect in the TUI: pick a provider from the core's list, type or paste the key into a
// field that never draws it, and the key goes to PUT /auth/:id; the prompt and its history
// never hold it.
import { render } from "ink-testing-library"
import { afterEach, expect, test } from "vitest"
import { cleanup } from "ink-testing-library"
import { App } from "../../src/tui/app"
import { createController } from "../../src/tui/controller"
import { createStore } from "../../src/tui/store"
import { stubServer, tick } from "./stub"

afterEach(() => cleanup())

const KEY = "sk-ant-typed-0123456789abcdef"
const PASTED = "sk-openai-pasted-9876543210zz"

function mount() {
  const stub = stubServer()
  const store = createStore()
  const remembered: string[] = []
  const controller = createController({ client: stub.client, store, directory: "/tmp/project", remember: (t) => remembered.push(t) })
  stub.events.subscribe(store.apply)
  const ui = render(<App store={store} controller={controller} onExit={() => {}} />)
  return { ...ui, stub, store, controller, remembered }
}

const type = async (ui: ReturnType<typeof mount>, s: string) => {
  ui.stdin.write(s)
  await tick()
}

test("tui connect - /connect lists the providers, takes the key hidden, stores it through PUT /auth and reloads the providers", async () => {
  const ui = mount()
  await ui.controller.boot()
  await type(ui, "/connect")
  await type(ui, "\r")
  await tick()
  const list = ui.lastFrame()!
  expect(list).toContain("Connect a provider")
  expect(list).toMatch(/fake\s+Fake · connected/)
  expect(list).toContain("anthropic")

  await type(ui, "anthro")
  await type(ui, "\r")
  expect(ui.lastFrame()).toContain("API key for anthropic")
  for (const ch of KEY) ui.stdin.write(ch)
  await tick()
  expect(ui.lastFrame()).toContain(`${KEY.length} characters typed`)
  const providersBefore = ui.stub.requests.filter((r) => r.path === "/config/providers").length
  await type(ui, "\r")
  await tick(100)

  const put = ui.stub.requests.filter((r) => r.path.startsWith("/auth/"))
  expect(put).toEqual([{ method: "PUT", path: "/auth/anthropic", body: { type: "api", key: KEY } }])
  expect(ui.stub.requests.filter((r) => r.path === "/config/providers").length).toBeGreaterThan(providersBefore)
  expect(ui.lastFrame()).toContain("Stored the anthropic key")
  expect(ui.lastFrame()).not.toContain("API key for anthropic")

  // Never drawn, never remembered, not in the prompt history (↑ brings back nothing of it).
  for (const frame of ui.frames) expect(frame).not.toContain(KEY.slice(0, 8))
  expect(ui.remembered).toEqual([])
  await type(ui, "\x1b[A")
  expect(ui.lastFrame()).not.toContain(KEY.slice(0, 8))
})

test("tui connect - /connect <provider> opens the key field at once; a paste lands there, not in the prompt; esc cancels", async () => {
  const ui = mount()
  await ui.controller.boot()
  await type(ui, "/connect openai")
  await type(ui, "\r")
  await tick()
  expect(ui.lastFrame()).toContain("API key for openai")
  await type(ui, `\x1b[200~${PASTED}\n\x1b[201~`)
  expect(ui.lastFrame()).toContain(`${PASTED.length} characters typed`)
  await type(ui, "\x1b")
  await tick()
  expect(ui.lastFrame()).not.toContain("API key for openai")
  expect(ui.stub.requests.some((r) => r.path.startsWith("/auth/"))).toBe(false)

  // Opened again, the field is empty: the cancelled key is gone.
  await type(ui, "/connect openai")
  await type(ui, "\r")
  await tick()
  expect(ui.lastFrame()).toContain("type or paste the key")
  await type(ui, `\x1b[200~${PASTED}\x1b[201~`)
  await type(ui, "\r")
  await tick(100)
  expect(ui.stub.requests.find((r) => r.path === "/auth/openai")?.body).toEqual({ type: "api", key: PASTED })
  for (const frame of ui.frames) expect(frame).not.toContain(PASTED.slice(0, 8))
  expect(ui.remembered).toEqual([])
  // ctrl+p (↑ on the home screen moves into the session list) recalls the command that opened the field, not what was pasted into it.
  await type(ui, "\x10")
  expect(ui.lastFrame()).toContain("/connect openai")
  expect(ui.lastFrame()).not.toContain(PASTED.slice(0, 8))
})

test("tui connect - a key typed on the prompt line after /connect <provider> is refused and left out of the history", async () => {
  const ui = mount()
  await ui.controller.boot()
  await type(ui, `/connect anthropic ${KEY}`)
  await type(ui, "\r")
  await tick()
  expect(ui.lastFrame()).toContain("hidden field")
  expect(ui.stub.requests.some((r) => r.path.startsWith("/auth/"))).toBe(false)
  await type(ui, "\x1b[A")
  expect(ui.lastFrame()).not.toContain(KEY)
  expect(ui.remembered).toEqual([])
})

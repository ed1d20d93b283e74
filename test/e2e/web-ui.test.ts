// The web UI end to end: the BUILT `wright web`, a real headless Chromium and the scripted
// model: a prompt streaming to the page, a permission answered from it, a session another
// process starts appearing live, the phone layout and the accessible names.
import { readFileSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test as base, vi } from "vitest"
import { wright } from "../lib/e2e"
import { text, toolCall } from "../lib/llm-server"
import { useWeb } from "./web-fixture"

const { noChromium, llm: model, project, startWeb, paired } = useWeb()
const test = base.skipIf(noChromium)
vi.setConfig({ testTimeout: 60_000 })

test("web - a prompt streams to the page, Enter sends, Stop ends a run, and the controls carry their names", async () => {
  const box = project()
  const web = await startWeb(box)
  const page = await paired(web)
  model().script({ text: ["Streaming ", "answer ", "from ", "the ", "scripted ", "model."], delayMs: 250 })

  await page.getByRole("button", { name: /^New session in project$/ }).click()
  const prompt = page.getByRole("textbox", { name: "Prompt" })
  await prompt.fill("Say something")
  // Every text the conversation shows, as the page draws it: reading it from here instead
  // would miss a partial answer whenever a loaded machine delays the read past the last delta.
  await page.evaluate(() => {
    const seen: string[] = ((window as unknown as { seen: string[] }).seen = [])
    const note = () => {
      const text = document.querySelector('[role="log"][aria-label="Conversation"]')?.textContent ?? ""
      if (text !== seen.at(-1)) seen.push(text)
    }
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
  // Enter sends (Shift+Enter would break the line).
  await prompt.press("Enter")
  const log = page.getByRole("log", { name: "Conversation" })
  await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain("Streaming answer from the scripted model.")
  // Part of the answer was on the page before the model had finished sending it.
  const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen)
  expect(seen.some((t) => t.includes("Streaming answer") && !t.includes("scripted model."))).toBe(true)
  expect(await log.textContent()).toContain("Say something")
  // The tab's title says the session finished.
  await expect.poll(() => page.title(), { timeout: 10_000 }).toMatch(/^✓ Finished: /)

  // A model that never answers: Stop ends the run.
  model().script({ hang: "after-headers" })
  await prompt.fill("Wait forever")
  await prompt.press("Enter")
  const stop = page.getByRole("button", { name: "Stop", exact: true })
  await stop.click({ timeout: 15_000 })
  await stop.waitFor({ state: "detached", timeout: 15_000 })
  await page.getByRole("button", { name: "Undo", exact: true }).waitFor()
})

test("web - a permission answered from the page lets the edit change the file; Stop shows while it waits", async () => {
  const box = project({ permission: { edit: "ask" } })
  writeFileSync(path.join(box.project, "hello.txt"), "hello world\n")
  const web = await startWeb(box)
  const page = await paired(web)
  model().script(toolCall("edit", { filePath: "hello.txt", oldString: "hello world", newString: "hello web" }), text("Edited."))

  await page.getByRole("button", { name: /^New session in project$/ }).click()
  // `@` offers the project's files; Enter takes the highlighted one.
  const prompt = page.getByRole("textbox", { name: "Prompt" })
  await prompt.pressSequentially("Edit @hel")
  await page.getByRole("option", { name: "hello.txt" }).waitFor({ timeout: 10_000 })
  await prompt.press("Enter")
  await expect.poll(() => prompt.inputValue(), { timeout: 10_000 }).toBe("Edit @hello.txt ")
  await page.getByRole("button", { name: "Send", exact: true }).click()
  const allow = page.getByRole("button", { name: "Allow once", exact: true })
  await allow.waitFor({ timeout: 15_000 })
  await page.getByRole("button", { name: "Allow always", exact: true }).waitFor()
  await page.getByRole("button", { name: "Reject", exact: true }).waitFor()
  await page.getByRole("button", { name: "Stop", exact: true }).waitFor()
  // The ask shows the edit's diff.
  await expect.poll(() => page.locator(".permission .diff").textContent(), { timeout: 10_000 }).toContain("+hello web")
  expect(readFileSync(path.join(box.project, "hello.txt"), "utf8")).toBe("hello world\n")

  await allow.click()
  await expect.poll(() => readFileSync(path.join(box.project, "hello.txt"), "utf8"), { timeout: 15_000 }).toBe("hello web\n")
  const log = page.getByRole("log", { name: "Conversation" })
  await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain("Edited.")
  // The call as its tool summarises it, with its diff; the review panel lists the file.
  await expect.poll(() => log.textContent(), { timeout: 10_000 }).toMatch(/hello\.txt/)
  await expect.poll(() => page.locator(".tool .diff").first().textContent(), { timeout: 10_000 }).toContain("+hello web")
  await page.getByRole("button", { name: /^Changes/ }).click()
  await expect.poll(() => page.getByRole("complementary", { name: "Changes" }).textContent(), { timeout: 10_000 }).toContain("hello.txt")

  // Undo puts the file back; Redo makes the edit again.
  await page.getByRole("button", { name: "Undo", exact: true }).click()
  await expect.poll(() => readFileSync(path.join(box.project, "hello.txt"), "utf8"), { timeout: 10_000 }).toBe("hello world\n")
  await page.getByRole("button", { name: "Redo", exact: true }).click()
  await expect.poll(() => readFileSync(path.join(box.project, "hello.txt"), "utf8"), { timeout: 10_000 }).toBe("hello web\n")
})

test("web - a question the model asks is answered from the page, and the model reads the answer", async () => {
  const box = project()
  const web = await startWeb(box)
  const page = await paired(web)
  const question = { question: "Which colour?", header: "Colour", options: [{ label: "Red", description: "warm" }, { label: "Blue", description: "cool" }] }
  model().script(toolCall("question", { questions: [question] }), text("Blue it is."))

  await page.getByRole("button", { name: /^New session in project$/ }).click()
  await page.getByRole("textbox", { name: "Prompt" }).fill("Ask me")
  await page.getByRole("button", { name: "Send", exact: true }).click()
  const dialog = page.getByRole("alertdialog", { name: "Question" })
  await dialog.waitFor({ timeout: 15_000 })
  await dialog.getByRole("radio", { name: /Blue/ }).check()
  await dialog.getByRole("button", { name: "Answer" }).click()
  const log = page.getByRole("log", { name: "Conversation" })
  await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain("Blue it is.")
  await dialog.waitFor({ state: "detached" })
  // The tool result the model read next carries the choice.
  const result = model().requests[1]!.body.messages.at(-1)
  expect(result.role).toBe("tool")
  expect(String(result.content)).toContain("Blue")
})

test("web - a session started by wright run appears in the list while the page is open", async () => {
  const box = project()
  const web = await startWeb(box)
  const page = await paired(web)
  const nav = page.getByRole("navigation", { name: "Sessions" })
  model().script(text("Answer from run.", { delayMs: 200 }))
  const run = await wright(["run", "--title", "started by run", "hi"], { cwd: box.project, env: box.env })
  expect(run.code, run.stderr).toBe(0)
  await expect.poll(() => nav.textContent(), { timeout: 15_000 }).toContain("started by run")
})

test("web - phone layout (390x844): the prompt box and Send are on screen, nothing overflows sideways", async () => {
  const box = project()
  const web = await startWeb(box)
  const page = await paired(web, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 })
  // The session list is a drawer on a phone: open it, start a session, it closes.
  await page.getByRole("button", { name: "Sessions list" }).click()
  await page.getByRole("navigation", { name: "Sessions" }).waitFor()
  await page.getByRole("button", { name: /^New session in project$/ }).click()
  const prompt = page.getByRole("textbox", { name: "Prompt" })
  await prompt.waitFor()
  await page.screenshot({ path: path.join(box.home, "phone.png") })
  const layout = await page.evaluate(() => {
    const box = (sel: string) => document.querySelector(sel)!.getBoundingClientRect().toJSON()
    return {
      scrollWidth: document.documentElement.scrollWidth,
      bodyScrollWidth: document.body.scrollWidth,
      prompt: box("textarea"),
      send: Array.from(document.querySelectorAll("button")).find((b) => b.textContent === "Send")!.getBoundingClientRect().toJSON(),
      innerHeight,
      innerWidth,
    }
  })
  expect(layout.innerWidth).toBe(390)
  expect(layout.scrollWidth).toBeLessThanOrEqual(390)
  expect(layout.bodyScrollWidth).toBeLessThanOrEqual(390)
  for (const r of [layout.prompt, layout.send]) {
    expect(r.top).toBeGreaterThanOrEqual(0)
    expect(r.bottom).toBeLessThanOrEqual(layout.innerHeight)
    expect(r.left).toBeGreaterThanOrEqual(0)
    expect(r.right).toBeLessThanOrEqual(390)
  }
  // The prompt sits in the bottom half, where a thumb reaches it.
  expect(layout.prompt.top).toBeGreaterThan(layout.innerHeight / 2)
  expect(statSync(path.join(box.home, "phone.png")).size).toBeGreaterThan(1000)
})

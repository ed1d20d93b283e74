// Images in the TUI (issue 35 part 1): a bracketed paste of an image file's path (as a terminal
// pastes a dragged file), `@shot.png`, and Ctrl+V (the clipboard through a stand-in `xclip` on
// PATH) each reach the model as an image. The real `wright` binary in tmux, the scripted LLM
// behind it (OpenAI Chat Completions: an image arrives as an `image_url` data URL). Needs a
// build (`node scripts/build.mjs`).
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import sharp from "sharp"
import { describe as base, expect, test } from "vitest"
import { requires } from "../lib/requires"
import { text, type RecordedRequest } from "../lib/llm-server"
import { BIN, sandbox, writeConfig } from "../lib/e2e"
import { tuiHarness } from "../lib/tui-harness"
import { Tmux } from "../tui/tmux"

const describe = base.skipIf(requires("tmux"))

const h = tuiHarness({ strict: false })

/** A model that takes images (`attachment: true`), as the catalogue or config says. */
function config() {
  const limit = { context: 200_000, output: 8_000 }
  return {
    model: "fake/vision-model",
    provider: { fake: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${h.server.url}/v1`, apiKey: "test-key" }, models: { "vision-model": { limit, attachment: true } } } },
  }
}

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer()

/** The last user message's parts as the model received them. */
function userParts(r: RecordedRequest): { type: string; text?: string; image_url?: { url: string } }[] {
  const content = (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user").at(-1)!.content
  return typeof content === "string" ? [{ type: "text", text: content }] : (content as never)
}

/** The size of the image in each image part of the request (decoded from its data URL). */
async function imagesIn(r: RecordedRequest): Promise<string[]> {
  const urls = userParts(r).flatMap((p) => (p.type === "image_url" && p.image_url ? [p.image_url.url] : []))
  return Promise.all(
    urls.map(async (url) => {
      expect(url).toMatch(/^data:image\/png;base64,/)
      const meta = await sharp(Buffer.from(url.slice(url.indexOf(",") + 1), "base64")).metadata()
      return `${meta.width}x${meta.height}`
    }),
  )
}

function start(box: ReturnType<typeof sandbox>, env: NodeJS.ProcessEnv = box.env) {
  writeConfig(box.project, config())
  const pane = h.pane()
  pane.start([process.execPath, BIN], { cwd: box.project, env })
  return pane
}

async function send(pane: Tmux, words: string, answer: string) {
  pane.type(words)
  pane.keys("Enter")
  await pane.waitFor(answer, { all: true })
  await pane.waitFor("tab agents")
}

describe("tui images - in a terminal", () => {
  test("tui images - a pasted image path (escaped spaces, quoted, file://) and @shot.png reach the model as images", async () => {
    const box = sandbox()
    const shots = path.join(box.home, "My Shots")
    mkdirSync(shots)
    writeFileSync(path.join(shots, "failing ui.png"), await png(32, 24))
    writeFileSync(path.join(shots, "other.png"), await png(40, 30))
    writeFileSync(path.join(box.project, "shot.png"), await png(16, 12))
    h.server.script(text("Pasted one seen."), text("Two more seen."), text("Mentioned one seen."), text("Plain text seen."))
    const pane = start(box)
    await pane.waitFor("tab agents")

    // As a terminal pastes a dragged file: backslash-escaped spaces.
    pane.paste(`${shots.replace(/ /g, "\\ ")}/failing\\ ui.png`)
    await pane.waitFor("[Image 1]")
    expect(pane.screen()).not.toContain("failing")
    await send(pane, "what is wrong here?", "Pasted one seen.")
    expect(await imagesIn(h.server.requests[0]!)).toEqual(["32x24"])
    expect(userParts(h.server.requests[0]!).find((p) => p.type === "text")?.text).toContain("[Image 1] what is wrong here?")

    // Quoted, and a file:// URL, in one prompt: two chips, two images.
    pane.paste(`'${shots}/failing ui.png'`)
    await pane.waitFor("[Image 2]")
    pane.paste(`file://${encodeURI(`${shots}/other.png`)}`)
    await pane.waitFor("[Image 3]")
    await send(pane, "and these?", "Two more seen.")
    expect(await imagesIn(h.server.requests[1]!)).toEqual(["32x24", "40x30"])

    await send(pane, "look at @shot.png please", "Mentioned one seen.")
    expect(await imagesIn(h.server.requests[2]!)).toEqual(["16x12"])

    // A pasted path of a file that does not exist, or of a text file, stays text.
    writeFileSync(path.join(box.project, "notes.txt"), "hello")
    pane.paste(`${shots}/missing.png`)
    await pane.waitFor("missing.png")
    pane.keys("C-u")
    await pane.waitFor((s) => !s.includes("missing.png"))
    pane.paste("notes.txt")
    await send(pane, " is plain", "Plain text seen.")
    expect(await imagesIn(h.server.requests[3]!)).toEqual([])
    expect(userParts(h.server.requests[3]!).map((p) => p.text ?? "").join("")).toContain("notes.txt is plain")
  })

  test("tui images - Ctrl+V pastes the clipboard's image through xclip; no image or no tool gives a notice", async () => {
    const box = sandbox()
    const bin = path.join(box.home, "bin")
    mkdirSync(bin)
    writeFileSync(path.join(box.home, "clip.png"), await png(24, 18))
    // The stand-in answers like xclip: the clipboard's types for TARGETS, the bytes for a type.
    // `clip-mode` says what the clipboard holds: an image, or only text.
    const xclip = path.join(bin, "xclip")
    writeFileSync(
      xclip,
      `#!/bin/sh
mode=$(cat "$HOME/clip-mode")
case "$*" in
  *TARGETS*) if [ "$mode" = image ]; then printf 'TARGETS\\nimage/png\\ntext/html\\n'; else printf 'TARGETS\\nUTF8_STRING\\nTEXT\\n'; fi ;;
  *image/png*) cat "$HOME/clip.png" ;;
  *) exit 1 ;;
esac
`,
    )
    chmodSync(xclip, 0o755)
    writeFileSync(path.join(box.home, "clip-mode"), "text")
    h.server.script(text("Clipboard image seen."))
    const pane = start(box, { ...box.env, PATH: `${bin}:${process.env.PATH}` })
    await pane.waitFor("tab agents")

    pane.keys("C-v")
    await pane.waitFor("No image on the clipboard")

    writeFileSync(path.join(box.home, "clip-mode"), "image")
    pane.keys("C-v")
    await pane.waitFor("[Image 1]")
    await send(pane, "what does this show?", "Clipboard image seen.")
    expect(h.server.requests).toHaveLength(1)
    expect(await imagesIn(h.server.requests[0]!)).toEqual(["24x18"])

    // No xclip at all (nor wl-paste): the notice names what to install.
    const bare = sandbox()
    const other = start(bare, { ...bare.env, PATH: path.dirname(process.execPath) })
    await other.waitFor("tab agents")
    other.keys("C-v")
    await other.waitFor("no clipboard tool found: install xclip")
  })
})

// Attached images (issue 35 part 1): fitted to the provider's limits with the real sharp, sent
// as image parts to models that take images, and replaced by a note the model reads for models
// that do not. Through the SDK client against a real core, the model faked at the HTTP wire
// (OpenAI Chat Completions: images arrive as `image_url` data URLs in the user message).
import { writeFileSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"
import sharp from "sharp"
import { afterAll, afterEach, beforeAll, expect, test } from "vitest"
import { startLLMServer, text, type LLMServer } from "../lib/llm-server"
import { testCore, type TestCore } from "../lib/core"

let llm: LLMServer
let core: TestCore | undefined
beforeAll(async () => {
  llm = await startLLMServer()
})
afterEach(async () => {
  await core?.close()
  core = undefined
  expect(llm.failures).toEqual([])
  llm.reset()
})
afterAll(() => llm.close())

/** One provider, two models: one that takes images (as the catalogue or config says) and one that does not. */
function config(extra: Record<string, unknown> = {}) {
  const limit = { context: 200_000, output: 8_000 }
  return {
    model: "fake/vision-model",
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        options: { baseURL: `${llm.url}/v1`, apiKey: "test-key" },
        models: { "vision-model": { limit, attachment: true }, "text-model": { limit } },
      },
    },
    ...extra,
  }
}

/** The user message's parts as the model received them. */
function userParts(i = 0): { type: string; text?: string; image_url?: { url: string } }[] {
  const body = llm.requests[i]!.body as { messages: { role: string; content: unknown }[] }
  const content = body.messages.filter((m) => m.role === "user").at(-1)!.content
  return typeof content === "string" ? [{ type: "text", text: content }] : (content as never)
}

async function send(name: string, image: Buffer, model?: string) {
  const file = path.join(core!.box.project, name)
  writeFileSync(file, image)
  const session = await core!.client.session.create({})
  llm.script(text("I see it."))
  await core!.client.session.prompt(session.id, {
    parts: [{ type: "text", text: "what is in this picture?" }, { type: "file", mime: "image/png", url: pathToFileURL(file).href, filename: name }],
    ...(model ? { model: { providerID: "fake", modelID: model } } : {}),
  })
  return userParts()
}

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer()
const sizeOf = async (dataUrl: string) => {
  const meta = await sharp(Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64")).metadata()
  return [meta.width, meta.height, meta.format]
}

test("image - a screenshot larger than the provider takes is scaled down inside 2000×2000, kept PNG, and the model is told", async () => {
  core = await testCore({ llm, config: config() })
  const parts = await send("wide.png", await png(3000, 1500))
  const image = parts.find((p) => p.type === "image_url")!
  expect(image.image_url!.url.startsWith("data:image/png;base64,")).toBe(true)
  expect(await sizeOf(image.image_url!.url)).toEqual([2000, 1000, "png"])
  expect(parts.map((p) => p.text ?? "").join("\n")).toContain("[The image wide.png was scaled from 3000×1500 to 2000×1000 to fit the provider's limits.]")
})

test("image - attachment.image sets the box and the byte limit; auto_resize false sends the image as it is", async () => {
  core = await testCore({ llm, config: config({ attachment: { image: { max_width: 400, max_height: 400 } } }) })
  const parts = await send("big.png", await png(1200, 900))
  expect(await sizeOf(parts.find((p) => p.type === "image_url")!.image_url!.url)).toEqual([400, 300, "png"])
  await core.close()

  llm.reset()
  core = await testCore({ llm, config: config({ attachment: { image: { auto_resize: false, max_width: 400 } } }) })
  const asIs = await send("big.png", await png(1200, 900))
  expect(await sizeOf(asIs.find((p) => p.type === "image_url")!.image_url!.url)).toEqual([1200, 900, "png"])
  expect(asIs.some((p) => p.text?.includes("scaled"))).toBe(false)
})

test("image - a model that takes no images gets a note instead, naming the model and how to turn it on", async () => {
  core = await testCore({ llm, config: config() })
  const parts = await send("shot.png", await png(10, 10), "text-model")
  expect(parts.some((p) => p.type === "image_url")).toBe(false)
  expect(parts.map((p) => p.text ?? "").join("\n")).toContain('[The image shot.png was not sent: the model fake/text-model does not accept images. Tell the user so; if it does accept them, "attachment": true on the model in the provider config turns this off.]')
})

test("image - a file that is not an image is refused with a note, and the prompt still goes", async () => {
  core = await testCore({ llm, config: config() })
  const parts = await send("broken.png", Buffer.from("this is not a png"))
  expect(parts.some((p) => p.type === "image_url")).toBe(false)
  expect(parts.map((p) => p.text ?? "").join("\n")).toMatch(/\[The image broken\.png was not attached: it could not be read as image\/png \(.+\)\.\]/)
})

// What counts as a pasted image path (issue 35 part 1): the forms terminals paste a dragged file
// in, and text that must stay text. The end-to-end paste is in test/e2e/tui-images.test.ts.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { expect, test } from "vitest"
import { createAttachments, pastedPath, readPastedImage } from "../../src/tui/attachments"
import * as E from "../../src/tui/editor"

const dir = "/work/project"
const home = "/home/ada"

test("attachments - pasted paths: absolute, ~/, relative, file://, quoted, backslash-escaped", () => {
  expect(pastedPath("/tmp/shot.png", dir, home)).toBe("/tmp/shot.png")
  expect(pastedPath("  /tmp/shot.png \n", dir, home)).toBe("/tmp/shot.png")
  expect(pastedPath("~/Pictures/shot.png", dir, home)).toBe("/home/ada/Pictures/shot.png")
  expect(pastedPath("img/shot.png", dir, home)).toBe("/work/project/img/shot.png")
  expect(pastedPath("file:///tmp/my%20shot.png", dir, home)).toBe("/tmp/my shot.png")
  expect(pastedPath("'/tmp/my shot.png'", dir, home)).toBe("/tmp/my shot.png")
  expect(pastedPath('"/tmp/my shot.png"', dir, home)).toBe("/tmp/my shot.png")
  expect(pastedPath("/tmp/my\\ shot\\ \\(1\\).png", dir, home)).toBe("/tmp/my shot (1).png")
})

test("attachments - text that is not one path stays text", () => {
  expect(pastedPath("look at /tmp/shot.png", dir, home)).toBeUndefined()
  expect(pastedPath("/tmp/a.png\n/tmp/b.png", dir, home)).toBeUndefined()
  expect(pastedPath("", dir, home)).toBeUndefined()
  expect(pastedPath("file://%zz", dir, home)).toBeUndefined()
})

test("attachments - only an existing image file is read; a chip names it while it is in the text", () => {
  const d = mkdtempSync(path.join(tmpdir(), "wright-attach-"))
  writeFileSync(path.join(d, "a.PNG"), Buffer.from([0x89, 0x50, 0x4e, 0x47]))
  writeFileSync(path.join(d, "notes.txt"), "hi")
  expect(readPastedImage("missing.png", d)).toBeUndefined()
  expect(readPastedImage("notes.txt", d)).toBeUndefined()
  const image = readPastedImage("a.PNG", d)!
  expect(image).toEqual({ mime: "image/png", url: "data:image/png;base64,iVBORw==", filename: "a.PNG" })
  const images = createAttachments()
  const chip = images.add(image)
  expect(chip).toBe("[Image 1]")
  expect(images.add(image)).toBe("[Image 2]")
  expect(images.partsFor(`${chip} and ${chip} again`)).toEqual([{ type: "file", mime: "image/png", url: image.url, filename: "a.PNG" }])
  expect(images.partsFor("the chip was deleted")).toEqual([])
})

test("attachments - backspace after an image chip deletes the whole chip", () => {
  const s = E.insert(E.emptyEditor(), "see [Image 3]")
  expect(E.backspace(s).text).toBe("see ")
  expect(E.backspace(E.insert(E.emptyEditor(), "see Image 3]")).text).toBe("see Image 3")
})

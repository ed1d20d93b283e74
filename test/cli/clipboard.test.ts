// The clipboard reader behind the TUI's Ctrl+V (issue 35 part 1), with stand-in wl-paste and
// xclip scripts on PATH: Wayland first when a Wayland display is set, PNG preferred, a
// clipboard of text is no image, and a failing tool is an error with its message.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { expect, test } from "vitest"
import { clipboardReader } from "../../src/cli/tui/clipboard"

function bin(scripts: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), "wright-clip-"))
  for (const [name, body] of Object.entries(scripts)) {
    writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`)
    chmodSync(path.join(dir, name), 0o755)
  }
  return dir
}

test("clipboard - on Wayland wl-paste is asked, and the PNG is taken over other image types", async () => {
  const dir = bin({
    "wl-paste": `case "$*" in *--list-types*) printf 'image/jpeg\\nimage/png\\ntext/plain\\n' ;; *"--type image/png"*) printf PNGDATA ;; *) exit 1 ;; esac`,
    xclip: "echo xclip must not run >&2; exit 1",
  })
  const got = await clipboardReader({ PATH: `${dir}:/usr/bin:/bin`, WAYLAND_DISPLAY: "wayland-0" }, dir)()
  expect(got).toEqual({ mime: "image/png", data: Buffer.from("PNGDATA") })
})

test("clipboard - text on the clipboard is no image; a tool that fails says why", async () => {
  const text = bin({ xclip: `case "$*" in *TARGETS*) printf 'TARGETS\\nUTF8_STRING\\n' ;; *) exit 1 ;; esac` })
  expect(await clipboardReader({ PATH: `${text}:/usr/bin:/bin` }, text)()).toBeUndefined()
  const broken = bin({ xclip: "echo \"Error: Can't open display: (null)\" >&2; exit 1" })
  await expect(clipboardReader({ PATH: `${broken}:/usr/bin:/bin` }, broken)()).rejects.toThrow("xclip failed: Error: Can't open display: (null)")
  const none = mkdtempSync(path.join(tmpdir(), "wright-clip-"))
  await expect(clipboardReader({ PATH: none }, none)()).rejects.toThrow("no clipboard tool found: install xclip")
})

import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { readTool, runTool, type AskRequest } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

function put(root: string, rel: string, content: string | Buffer) {
  const file = path.join(root, rel)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, content)
  return file
}

const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join("\n")

describe("read", () => {
  test("read - numbered lines, end-of-file footer, and a read ask with the worktree-relative path", async () => {
    const ctx = toolContext()
    const file = put(ctx.directory, "src/a.txt", "alpha\nbeta\ngamma\n")
    const result = await runTool(readTool, { filePath: "src/a.txt" }, ctx)
    expect(result.output).toBe(
      `<path>${file}</path>\n<type>file</type>\n<content>\n1: alpha\n2: beta\n3: gamma\n\n(End of file - total 3 lines)\n</content>`,
    )
    expect(result.title).toBe("src/a.txt")
    expect(ctx.asks).toEqual([{ permission: "read", patterns: ["src/a.txt"], always: ["*"], metadata: { filepath: file } }])
  })

  test("read - offset and limit page through a file, the footer names the next offset", async () => {
    const ctx = toolContext()
    put(ctx.directory, "ten.txt", lines(10))
    const page = await runTool(readTool, { filePath: "ten.txt", offset: 3, limit: 2 }, ctx)
    expect(page.output).toContain("<content>\n3: line 3\n4: line 4\n\n(Showing lines 3-4 of 10. Use offset=5 to continue.)\n</content>")
    expect(page.metadata.truncated).toBe(true)
    const last = await runTool(readTool, { filePath: "ten.txt", offset: 9 }, ctx)
    expect(last.output).toContain("9: line 9\n10: line 10\n\n(End of file - total 10 lines)")
  })

  test("read - 2000 lines by default", async () => {
    const ctx = toolContext()
    put(ctx.directory, "big.txt", lines(2500, (i) => `${i}`))
    const result = await runTool(readTool, { filePath: "big.txt" }, ctx)
    expect(result.output).toContain("\n2000: 2000\n\n(Showing lines 1-2000 of 2500. Use offset=2001 to continue.)")
    expect(result.output).not.toContain("2001: 2001")
  })

  test("read - output capped at 50 KB with the offset to continue, and not truncated again by the runner", async () => {
    const ctx = toolContext()
    put(ctx.directory, "wide.txt", lines(1000, (i) => `${i}`.padEnd(100, "x")))
    const result = await runTool(readTool, { filePath: "wide.txt" }, ctx)
    const match = result.output.match(/\(Output capped at 50 KB\. Showing lines 1-(\d+)\. Use offset=(\d+) to continue\.\)/)
    expect(match).not.toBeNull()
    expect(Number(match![2])).toBe(Number(match![1]) + 1)
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(51200 + 200 + ctx.directory.length)
    expect(result.output).not.toContain("lines truncated")
    const next = await runTool(readTool, { filePath: "wide.txt", offset: Number(match![2]) }, ctx)
    expect(next.output).toContain(`\n${match![2]}: ${match![2]}x`)
  })

  test("read - lines longer than 2000 characters are cut", async () => {
    const ctx = toolContext()
    put(ctx.directory, "long.txt", `short\n${"y".repeat(5000)}\n`)
    const result = await runTool(readTool, { filePath: "long.txt" }, ctx)
    expect(result.output).toContain(`2: ${"y".repeat(2000)}... (line truncated to 2000 chars)\n`)
    expect(result.output).not.toContain("y".repeat(2001))
  })

  test("read - CRLF and a BOM do not leak into the numbered lines", async () => {
    const ctx = toolContext()
    put(ctx.directory, "win.txt", "\uFEFFone\r\ntwo\r\n")
    const result = await runTool(readTool, { filePath: "win.txt" }, ctx)
    expect(result.output).toContain("<content>\n1: one\n2: two\n\n(End of file - total 2 lines)")
  })

  test("read - an offset beyond the end is an error stating the line count", async () => {
    const ctx = toolContext()
    put(ctx.directory, "five.txt", lines(5))
    await expect(runTool(readTool, { filePath: "five.txt", offset: 9 }, ctx)).rejects.toThrow(/Offset 9 is out of range.*5 lines/)
  })

  test("read - binary files are refused", async () => {
    const ctx = toolContext()
    const file = put(ctx.directory, "blob.data", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02, 0x00, 0x03]))
    await expect(runTool(readTool, { filePath: "blob.data" }, ctx)).rejects.toThrow(`Cannot read binary file: ${file}`)
  })

  test("read - images and PDFs come back as data-URL attachments", async () => {
    const ctx = toolContext()
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex")
    put(ctx.directory, "img/dot.png", png)
    const image = await runTool(readTool, { filePath: "img/dot.png" }, ctx)
    expect(image.output).toBe("Image read successfully")
    expect(image.attachments).toEqual([{ mime: "image/png", url: `data:image/png;base64,${png.toString("base64")}`, filename: "dot.png" }])

    const pdfBytes = Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", "latin1")
    put(ctx.directory, "doc.pdf", pdfBytes)
    const pdf = await runTool(readTool, { filePath: "doc.pdf" }, ctx)
    expect(pdf.output).toBe("PDF read successfully")
    expect(pdf.attachments?.[0]?.mime).toBe("application/pdf")
    expect(Buffer.from(pdf.attachments![0]!.url.split(",")[1]!, "base64").equals(pdfBytes)).toBe(true)
  })

  test("read - a missing file suggests similar names", async () => {
    const ctx = toolContext()
    const ts = put(ctx.directory, "src/config.ts", "x")
    put(ctx.directory, "src/other.ts", "x")
    const missing = path.join(ctx.directory, "src/config.js")
    await expect(runTool(readTool, { filePath: "src/config.js" }, ctx)).rejects.toThrow(
      `File not found: ${missing}\n\nDid you mean one of these?\n${ts}`,
    )
    await expect(runTool(readTool, { filePath: "nothing-like-it.md" }, ctx)).rejects.toThrow(/^File not found: .*nothing-like-it\.md$/)
  })

  test("read - a directory is listed, sorted, subdirectories with a trailing slash", async () => {
    const ctx = toolContext()
    put(ctx.directory, "pkg/b.ts", "")
    put(ctx.directory, "pkg/a.ts", "")
    put(ctx.directory, "pkg/lib/c.ts", "")
    const result = await runTool(readTool, { filePath: "pkg" }, ctx)
    expect(result.output).toBe(`<path>${path.join(ctx.directory, "pkg")}</path>\n<type>directory</type>\n<entries>\na.ts\nb.ts\nlib/\n\n(3 entries)\n</entries>`)
  })

  test("read - nested AGENTS.md/CLAUDE.md between the worktree and the file are added once per message", async () => {
    const ctx = toolContext()
    put(ctx.directory, "AGENTS.md", "root rules (already in the system prompt)")
    const pkgRules = put(ctx.directory, "pkg/AGENTS.md", "pkg rules")
    const subRules = put(ctx.directory, "pkg/sub/CLAUDE.md", "sub rules")
    put(ctx.directory, "pkg/sub/file.ts", "code\n")
    put(ctx.directory, "pkg/sub/other.ts", "more\n")

    const first = await runTool(readTool, { filePath: "pkg/sub/file.ts" }, ctx)
    expect(first.output).toContain(`</content>\n\n<system-reminder>Instructions from: ${pkgRules}\npkg rules</system-reminder>`)
    expect(first.output).toContain(`<system-reminder>Instructions from: ${subRules}\nsub rules</system-reminder>`)
    expect(first.output).not.toContain("root rules")
    expect(first.metadata.loaded).toEqual([pkgRules, subRules])

    const second = await runTool(readTool, { filePath: "pkg/sub/other.ts" }, ctx)
    expect(second.output).not.toContain("system-reminder")

    const nextMessage = await runTool(readTool, { filePath: "pkg/sub/other.ts" }, { ...ctx, messageID: "msg_next" })
    expect(nextMessage.output).toContain("pkg rules")
  })

  test("read - invalid arguments get the rewrite-your-input message", async () => {
    const ctx = toolContext()
    await expect(runTool(readTool, { filePath: 42 }, ctx)).rejects.toThrow(
      /^The read tool was called with invalid arguments: filePath: .*\nPlease rewrite the input so it satisfies the expected schema\.$/,
    )
    await expect(runTool(readTool, { filePath: "a", offset: 0 }, ctx)).rejects.toThrow(/invalid arguments: offset/)
  })

  test("read - a file in the worktree but outside the project directory needs no external_directory ask", async () => {
    const worktree = tempDir()
    const project = path.join(worktree, "packages/app")
    mkdirSync(project, { recursive: true })
    put(worktree, "shared/notes.md", "shared\n")
    const ctx = toolContext({ directory: project, worktree })
    const result = await runTool(readTool, { filePath: "../../shared/notes.md" }, ctx)
    expect(result.output).toContain("1: shared")
    expect(ctx.asks).toEqual([expect.objectContaining({ permission: "read", patterns: ["shared/notes.md"] })])
  })

  describe("outside the project", () => {
    function setup(decide?: (req: AskRequest) => void) {
      const root = tempDir()
      const project = path.join(root, "project")
      const outside = path.join(root, "outside")
      mkdirSync(project)
      put(outside, "secret.txt", "secret\n")
      return { ctx: toolContext({ directory: project, decide }), project, outside }
    }

    test("read - ../, absolute and symlinked paths ask external_directory before read", async () => {
      const { ctx, project, outside } = setup()
      symlinkSync(path.join(outside, "secret.txt"), path.join(project, "link.txt"))
      const external = { permission: "external_directory", patterns: [`${outside}/*`], always: [`${outside}/*`] }
      for (const filePath of ["../outside/secret.txt", path.join(outside, "secret.txt"), "link.txt"]) {
        ctx.asks.length = 0
        const result = await runTool(readTool, { filePath }, ctx)
        expect(result.output).toContain("1: secret")
        expect(ctx.asks.map((a) => a.permission)).toEqual(["external_directory", "read"])
        expect(ctx.asks[0]).toMatchObject(external)
      }
    })

    test("read - a rejected external_directory ask stops the read", async () => {
      const { ctx } = setup((req) => {
        if (req.permission === "external_directory") throw new Error("The user rejected permission to use this specific tool call.")
      })
      await expect(runTool(readTool, { filePath: "../outside/secret.txt" }, ctx)).rejects.toThrow(/rejected/)
      expect(ctx.asks.map((a) => a.permission)).toEqual(["external_directory"])
    })
  })
})

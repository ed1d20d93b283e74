// Path rules played by an attacker: a symlink inside the project that points at a file the
// rules protect (`notes.txt -> .env`, `link -> secret`) must meet those rules, through every
// file tool. Asks go through the real permission service with the built-in defaults (which
// ask before reading `.env` files) plus the rules of each test.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, test } from "vitest"
import { applyPatchTool, bash, editTool, grepTool, listTool, readTool, runTool, writeTool } from "../../src/tool"
import { tempDir } from "../lib/tool-context"
import { ruledContext } from "./ruled-context"

function project() {
  const dir = tempDir()
  const at = (rel: string) => path.join(dir, rel)
  writeFileSync(at(".env"), "API_KEY=sk-live-123\n")
  mkdirSync(at("secret"))
  writeFileSync(at("secret/key.txt"), "private key\n")
  mkdirSync(at("src"))
  writeFileSync(at("src/a.ts"), "export const a = 1\n")
  symlinkSync(".env", at("notes.txt"))
  symlinkSync("secret", at("link"))
  symlinkSync("src", at("code"))
  return { dir, at }
}

const secretDeny = { read: { "secret/*": "deny" }, edit: { "secret/*": "deny" } }
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: Error) => e)

describe("path rules", () => {
  test("path rules - reading a symlink to .env asks as reading .env does, and nothing is read when the user says no", async () => {
    const { dir } = project()
    const ctx = ruledContext({ directory: dir })
    const error = await failure(runTool(readTool, { filePath: "notes.txt" }, ctx))
    expect(error?.name).toBe("PermissionRejectedError")
    expect(ctx.asked).toEqual([expect.objectContaining({ permission: "read", patterns: ["notes.txt", ".env"] })])
  })

  test("path rules - a deny rule on secret/* is not dodged through link -> secret", async () => {
    const { dir } = project()
    for (const filePath of ["link/key.txt", "./link/../secret/key.txt", path.join(dir, "link/key.txt")]) {
      const error = await failure(runTool(readTool, { filePath }, ruledContext({ directory: dir, rules: secretDeny })))
      expect(error?.name, filePath).toBe("PermissionDeniedError")
    }
  })

  test("path rules - an in-project symlink the rules allow still reads, asking with both forms", async () => {
    const { dir } = project()
    const ctx = ruledContext({ directory: dir, rules: secretDeny })
    const result = await runTool(readTool, { filePath: "code/a.ts" }, ctx)
    expect(result.output).toContain("export const a = 1")
    expect(ctx.asks).toEqual([expect.objectContaining({ permission: "read", patterns: ["code/a.ts", "src/a.ts"] })])
    expect(ctx.asked).toEqual([])
  })

  test("path rules - write and edit through link -> secret are denied and the file is unchanged", async () => {
    const { dir, at } = project()
    const write = await failure(runTool(writeTool, { filePath: "link/key.txt", content: "pwned\n" }, ruledContext({ directory: dir, rules: secretDeny })))
    expect(write?.name).toBe("PermissionDeniedError")
    const edit = await failure(
      runTool(editTool, { filePath: "link/key.txt", oldString: "private", newString: "pwned" }, ruledContext({ directory: dir, rules: secretDeny })),
    )
    expect(edit?.name).toBe("PermissionDeniedError")
    expect(readFileSync(at("secret/key.txt"), "utf8")).toBe("private key\n")
  })

  test("path rules - apply_patch through link -> secret is denied and the file is unchanged", async () => {
    const { dir, at } = project()
    const patchText = ["*** Begin Patch", "*** Update File: link/key.txt", "@@", "-private key", "+pwned", "*** End Patch"].join("\n")
    const ctx = ruledContext({ directory: dir, rules: secretDeny })
    expect((await failure(runTool(applyPatchTool, { patchText }, ctx)))?.name).toBe("PermissionDeniedError")
    expect(ctx.asks.at(-1)).toMatchObject({ permission: "edit", patterns: ["link/key.txt", "secret/key.txt"] })
    expect(readFileSync(at("secret/key.txt"), "utf8")).toBe("private key\n")
  })

  test("path rules - grep on a symlink to .env asks read as reading .env does", async () => {
    const { dir } = project()
    const ctx = ruledContext({ directory: dir })
    const error = await failure(runTool(grepTool, { pattern: "API_KEY", path: "notes.txt" }, ctx))
    expect(error?.name).toBe("PermissionRejectedError")
    expect(ctx.asked).toEqual([expect.objectContaining({ permission: "read", patterns: ["notes.txt", ".env"] })])
  })

  test("path rules - grep on a file a read rule denies is denied, through a link too", async () => {
    const { dir } = project()
    for (const p of ["secret/key.txt", "link/key.txt"]) {
      const error = await failure(runTool(grepTool, { pattern: "key", path: p }, ruledContext({ directory: dir, rules: secretDeny })))
      expect(error?.name, p).toBe("PermissionDeniedError")
    }
  })

  test("path rules - list meets rules written for the directory a link points to", async () => {
    const { dir } = project()
    const ctx = ruledContext({ directory: dir, rules: { list: { [path.join(dir, "secret")]: "deny" } } })
    expect((await failure(runTool(listTool, { path: "link" }, ctx)))?.name).toBe("PermissionDeniedError")
    expect(ctx.asks.at(-1)).toMatchObject({ permission: "list", patterns: [path.join(dir, "link"), path.join(dir, "secret")] })
  })

  test("path rules - bash `cat` of a symlink to .env asks read as the read tool does; refused, the command never runs", async () => {
    const { dir, at } = project()
    const ctx = ruledContext({ directory: dir })
    const error = await failure(runTool(bash, { command: "cat notes.txt > leaked.txt" }, ctx))
    expect(error?.name).toBe("PermissionRejectedError")
    expect(ctx.asked).toEqual([expect.objectContaining({ permission: "read", patterns: ["notes.txt", ".env"] })])
    expect(existsSync(at("leaked.txt"))).toBe(false)
  })

  test("path rules - bash reads through link -> secret meet the secret/* deny; other reads run without a question", async () => {
    const { dir, at } = project()
    for (const command of ["cat link/key.txt > leaked.txt", "base64 < link/key.txt > leaked.txt", "grep -h . link/* > leaked.txt"]) {
      const error = await failure(runTool(bash, { command }, ruledContext({ directory: dir, rules: secretDeny })))
      expect(error?.name, command).toBe("PermissionDeniedError")
    }
    expect(existsSync(at("leaked.txt"))).toBe(false)
    const ctx = ruledContext({ directory: dir, rules: secretDeny })
    expect((await runTool(bash, { command: "cat code/a.ts" }, ctx)).output).toContain("export const a = 1")
    expect(ctx.asked).toEqual([])
  })

  test("path rules - a project opened through a symlinked path gets patterns relative to the worktree", async () => {
    const { dir } = project()
    const alias = path.join(tempDir(), "alias")
    symlinkSync(dir, alias)
    const ctx = ruledContext({ directory: alias })
    await failure(runTool(readTool, { filePath: "notes.txt" }, ctx))
    expect(ctx.asked).toEqual([expect.objectContaining({ permission: "read", patterns: ["notes.txt", ".env"] })])
  })
})

import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { externalDirectoryAsk, externalDirectoryPattern, isInside, pathPatterns, resolveReal } from "../../src/permission"

let root: string
let project: string
let outside: string

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "wright-perm-paths-")))
  project = path.join(root, "project")
  outside = path.join(root, "outside")
  fs.mkdirSync(path.join(project, "src", "deep"), { recursive: true })
  fs.mkdirSync(path.join(outside, "dir"), { recursive: true })
  fs.writeFileSync(path.join(outside, "secret.txt"), "s")
  fs.symlinkSync(path.join(outside, "dir"), path.join(project, "link"))
  fs.symlinkSync("../..", path.join(project, "src", "deep", "up"))
  fs.symlinkSync(path.join(project, "loop-b"), path.join(project, "loop-a"))
  fs.symlinkSync(path.join(project, "loop-a"), path.join(project, "loop-b"))
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("paths", () => {
  it("paths - pathPatterns gives the path as written and resolved, relative inside the worktree, absolute outside", () => {
    const opts = { cwd: project, worktree: project }
    expect(pathPatterns("src/a.ts", opts)).toEqual(["src/a.ts"])
    expect(pathPatterns("./src/../src/a.ts", opts)).toEqual(["src/a.ts"])
    expect(pathPatterns("link/x.txt", opts)).toEqual(["link/x.txt", path.join(outside, "dir", "x.txt")])
    expect(pathPatterns("src/deep/up/src/a.ts", opts)).toEqual(["src/deep/up/src/a.ts", "src/a.ts"])
    expect(pathPatterns("../outside/secret.txt", opts)).toEqual([path.join(outside, "secret.txt")])
    expect(pathPatterns(".", opts)).toEqual(["."])
    expect(pathPatterns("a.ts", { cwd: path.join(project, "src"), worktree: project })).toEqual(["src/a.ts"])
  })

  it("paths - resolveReal makes relative paths absolute", () => {
    expect(resolveReal("src/a.ts", project)).toBe(path.join(project, "src", "a.ts"))
    expect(resolveReal("./src/../src/a.ts", project)).toBe(path.join(project, "src", "a.ts"))
  })

  it("paths - resolveReal follows symlinks, also for paths that do not exist yet", () => {
    expect(resolveReal("link", project)).toBe(path.join(outside, "dir"))
    expect(resolveReal("link/new/file.txt", project)).toBe(path.join(outside, "dir", "new", "file.txt"))
  })

  it("paths - `..` after a symlink means the parent of its target, as the kernel reads it", () => {
    expect(resolveReal("link/../secret.txt", project)).toBe(path.join(outside, "secret.txt"))
  })

  it("paths - relative symlinks resolve against their own directory", () => {
    expect(resolveReal("src/deep/up/link", project)).toBe(path.join(outside, "dir"))
  })

  it("paths - a symlink loop ends instead of hanging", () => {
    expect(resolveReal("loop-a/x", project)).toMatch(/loop-[ab]/)
  })

  it("paths - isInside accepts the root and its descendants only", () => {
    expect(isInside(project, project)).toBe(true)
    expect(isInside(project, path.join(project, "src"))).toBe(true)
    expect(isInside(project, path.join(project, "..data"))).toBe(true)
    expect(isInside(project, `${project}-other`)).toBe(false)
    expect(isInside(project, root)).toBe(false)
    expect(isInside("/", "/etc")).toBe(true)
  })

  it("paths - externalDirectoryPattern is <dir>/*, the parent's for a file", () => {
    expect(externalDirectoryPattern("/etc/hosts")).toBe("/etc/*")
    expect(externalDirectoryPattern("/etc", true)).toBe("/etc/*")
    expect(externalDirectoryPattern("/hosts")).toBe("/*")
    expect(externalDirectoryPattern("/", true)).toBe("/*")
  })

  it("paths - externalDirectoryAsk is undefined inside the project", () => {
    expect(externalDirectoryAsk("src/a.ts", { cwd: project, project })).toBeUndefined()
  })

  it.each([
    ["../outside/secret.txt", () => path.join(outside, "*")],
    ["/etc/passwd", () => "/etc/*"],
    ["link/file.txt", () => path.join(outside, "dir", "*")],
    ["link/../secret.txt", () => path.join(outside, "*")],
    ["link", () => path.join(outside, "dir", "*")],
  ])("paths - externalDirectoryAsk catches %j", (target, pattern) => {
    const ask = externalDirectoryAsk(target, { cwd: project, project })
    expect(ask?.permission).toBe("external_directory")
    expect(ask?.patterns).toEqual([pattern()])
    expect(ask?.always).toEqual([pattern()])
  })
})

import path from "node:path"
import { afterEach, beforeEach, describe, expect, test } from "vitest"
import { findWorktree, xdgPaths } from "../../src/config"
import { makeTree, type Tree } from "./fixture"

let t: Tree
beforeEach(() => {
  t = makeTree()
})
afterEach(() => t.cleanup())

describe("config paths", () => {
  test("config - XDG directories default under the home directory", () => {
    expect(xdgPaths({}, "/home/u")).toEqual({
      config: "/home/u/.config/wright",
      data: "/home/u/.local/share/wright",
      cache: "/home/u/.cache/wright",
      state: "/home/u/.local/state/wright",
    })
  })

  test("config - absolute XDG variables are used and relative ones ignored", () => {
    const paths = xdgPaths({ XDG_CONFIG_HOME: "/etc/xdg-user", XDG_DATA_HOME: "relative/data" }, "/home/u")
    expect(paths.config).toBe("/etc/xdg-user/wright")
    expect(paths.data).toBe("/home/u/.local/share/wright")
  })

  test("config - the worktree is the nearest directory holding .git, a directory or a file", () => {
    const deep = t.mkdir("repo/src/lib")
    expect(findWorktree(deep)).toBe(t.repo)

    const linked = t.mkdir("linked/pkg")
    t.write("linked/.git", "gitdir: /somewhere/.git/worktrees/linked\n")
    expect(findWorktree(linked)).toBe(path.join(t.root, "linked"))
  })

  test("config - outside git the worktree is the directory itself", () => {
    const dir = t.mkdir("plain/a")
    expect(findWorktree(dir)).toBe(dir)
  })
})

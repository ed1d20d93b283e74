import path from "node:path"
import { afterEach, beforeEach, expect, test } from "vitest"
import { loadConfig } from "../../src/config"
import { makeTree, type Tree } from "./fixture"

let t: Tree
beforeEach(() => {
  t = makeTree()
})
afterEach(() => t.cleanup())

test("config dirs - OPENCODE_CONFIG_DIR adds a config folder: its opencode.json and its folder for agents, commands, skills", async () => {
  const dir = t.mkdir("team-config")
  t.write("team-config/opencode.json", { model: "team/model", small_model: "team/small" })
  t.write("repo/wright.json", { small_model: "project/small" })
  const loaded = await loadConfig({ trust: true, directory: t.repo, env: { OPENCODE_CONFIG_DIR: dir }, home: t.home, managedDirs: [] })
  // Above the project's files, as OpenCode's directory pass.
  expect(loaded.config.model).toBe("team/model")
  expect(loaded.config.small_model).toBe("team/small")
  expect(loaded.files).toContain(path.join(dir, "opencode.json"))
  expect(loaded.dirs.at(-1)).toBe(dir)
  // The user's own setting: a project cannot have set it.
  expect(loaded.userConfig.model).toBe("team/model")
})

test("config dirs - WRIGHT_CONFIG_DIR wins over OPENCODE_CONFIG_DIR, and a missing folder is a warning naming the variable", async () => {
  const wright = t.mkdir("w")
  t.write("w/wright.jsonc", '{ "model": "w/m" // mine\n}')
  t.write("w/opencode.json", { model: "shadowed/m" })
  const loaded = await loadConfig({ directory: t.repo, env: { WRIGHT_CONFIG_DIR: wright, OPENCODE_CONFIG_DIR: "/nowhere" }, home: t.home, managedDirs: [] })
  expect(loaded.config.model).toBe("w/m")
  const missing = await loadConfig({ directory: t.repo, env: { OPENCODE_CONFIG_DIR: path.join(t.root, "gone") }, home: t.home, managedDirs: [] })
  expect(missing.warnings).toEqual([`OPENCODE_CONFIG_DIR: ${path.join(t.root, "gone")} is not a directory; ignored`])
})

test("config dirs - the managed config (/etc/opencode) overrides the user's and the project's settings", async () => {
  const managed = t.mkdir("etc/opencode")
  t.write("etc/opencode/opencode.json", { model: "corp/approved", disabled_providers: ["openai"] })
  t.write("home/.config/wright/wright.json", { model: "user/choice" })
  t.write("repo/wright.json", { model: "project/choice" })
  const loaded = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home, managedDirs: [path.join(t.root, "etc/wright"), managed] })
  expect(loaded.config.model).toBe("corp/approved")
  expect(loaded.config.disabled_providers).toEqual(["openai"])
  // Command-line flags still win.
  const flagged = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home, overrides: { model: "flag/model" }, managedDirs: [path.join(t.root, "etc/wright"), managed] })
  expect(flagged.config.model).toBe("flag/model")
  // wright's own managed folder shadows OpenCode's.
  t.write("etc/wright/wright.json", { model: "corp/wright" })
  const own = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home, managedDirs: [path.join(t.root, "etc/wright"), managed] })
  expect(own.config.model).toBe("corp/wright")
  expect(own.config.disabled_providers).toBeUndefined()
})

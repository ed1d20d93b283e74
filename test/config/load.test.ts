import path from "node:path"
import { afterEach, beforeEach, describe, expect, test } from "vitest"
import { ConfigError, loadConfig } from "../../src/config"
import { makeTree, type Tree } from "./fixture"

let t: Tree
beforeEach(() => {
  t = makeTree()
})
afterEach(() => t.cleanup())

const globalFile = (name = "wright.json") => path.join("home/.config/wright", name)

describe("config load", () => {
  test("config - each source beats the ones before it: global < WRIGHT_CONFIG < project root < nested < inline < overrides", async () => {
    const nested = t.mkdir("repo/packages/app")
    const env: NodeJS.ProcessEnv = {}
    const model = async (overrides?: { model: string }) =>
      (await loadConfig({ trust: true, directory: nested, env, home: t.home, overrides })).config.model

    t.write(globalFile(), { model: "g/1", shell: "bash" })
    expect(await model()).toBe("g/1")
    env.WRIGHT_CONFIG = t.write("custom.json", { model: "c/1" })
    expect(await model()).toBe("c/1")
    t.write("repo/wright.json", { model: "p/root" })
    expect(await model()).toBe("p/root")
    t.write("repo/packages/app/wright.jsonc", '{ "model": "p/nested" }')
    expect(await model()).toBe("p/nested")
    env.WRIGHT_CONFIG_CONTENT = '{"model": "i/1"}'
    expect(await model()).toBe("i/1")
    expect(await model({ model: "o/1" })).toBe("o/1")

    const loaded = await loadConfig({ trust: true, directory: nested, env, home: t.home })
    expect(loaded.files).toEqual([
      path.join(t.root, globalFile()),
      path.join(t.root, "custom.json"),
      path.join(t.repo, "wright.json"),
      path.join(nested, "wright.jsonc"),
    ])
    expect(loaded.config.shell).toBe("bash")
    expect(loaded.worktree).toBe(t.repo)
  })

  test("config - objects deep-merge while instructions and plugin concatenate without duplicates", async () => {
    t.write(globalFile(), {
      provider: { local: { options: { baseURL: "http://127.0.0.1:1/v1", apiKey: "old" } } },
      instructions: ["a.md", "b.md"],
      plugin: ["x", ["y", { v: 1 }]],
    })
    t.write("repo/wright.json", {
      provider: { local: { options: { apiKey: "new" }, models: { m: { limit: { context: 1000, output: 100 } } } } },
      instructions: ["b.md", "c.md"],
      plugin: [["y", { v: 2 }], "z"],
    })
    const { config } = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home })
    expect(config.provider?.local?.options).toEqual({ baseURL: "http://127.0.0.1:1/v1", apiKey: "new" })
    expect(config.provider?.local?.models?.m?.limit).toEqual({ context: 1000, output: 100 })
    expect(config.instructions).toEqual(["a.md", "b.md", "c.md"])
    expect(config.plugin).toEqual(["x", ["y", { v: 2 }], "z"])
  })

  test("config - opencode.json is read only at levels that have no wright file", async () => {
    const pkg = t.mkdir("repo/pkg")
    t.write("repo/opencode.json", { model: "oc/root", shell: "zsh" })
    t.write("repo/pkg/wright.json", { model: "w/pkg" })
    t.write("repo/pkg/opencode.json", { username: "shadowed" })
    const loaded = await loadConfig({ trust: true, directory: pkg, env: {}, home: t.home })
    expect(loaded.config).toMatchObject({ model: "w/pkg", shell: "zsh" })
    expect(loaded.config.username).toBeUndefined()
    expect(loaded.files).toEqual([path.join(t.repo, "opencode.json"), path.join(pkg, "wright.json")])
  })

  test("config - the global OpenCode file is used only while no global wright file exists", async () => {
    t.write("home/.config/opencode/opencode.jsonc", '{ "model": "oc/global" } // from opencode')
    const before = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home })
    expect(before.config.model).toBe("oc/global")
    expect(before.dirs).toEqual([path.join(t.home, ".config/opencode")])

    t.write(globalFile("config.json"), { small_model: "w/small" })
    const after = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home })
    expect(after.config).toEqual({ small_model: "w/small" })
    expect(after.dirs).toEqual([path.join(t.home, ".config/wright")])
  })

  test("config - XDG_CONFIG_HOME moves the global directory", async () => {
    t.write("xdg/wright/wright.json", { model: "xdg/1" })
    t.write(globalFile(), { model: "home/1" })
    const loaded = await loadConfig({ trust: true, directory: t.repo, env: { XDG_CONFIG_HOME: path.join(t.root, "xdg") }, home: t.home })
    expect(loaded.config.model).toBe("xdg/1")
  })

  test("config - .wright and .opencode directories load their files and are listed from far to near", async () => {
    const pkg = t.mkdir("repo/pkg")
    t.mkdir("home/.config/wright/agents")
    t.mkdir("repo/.opencode/agents")
    t.write("repo/.wright/wright.jsonc", '{ "model": "dir/root", "shell": "fish" }')
    t.write("repo/.opencode/opencode.json", { username: "shadowed by .wright at the same level" })
    t.write("repo/pkg/.opencode/opencode.json", { model: "dir/pkg" })
    const loaded = await loadConfig({ trust: true, directory: pkg, env: {}, home: t.home })
    expect(loaded.config).toEqual({ model: "dir/pkg", shell: "fish" })
    expect(loaded.dirs).toEqual([
      path.join(t.home, ".config/wright"),
      path.join(t.repo, ".opencode"),
      path.join(t.repo, ".wright"),
      path.join(pkg, ".opencode"),
    ])
  })

  test("config - project files above the git worktree root are not read", async () => {
    t.write("wright.json", { model: "outside/1" })
    t.write("repo/wright.json", { shell: "sh" })
    const loaded = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home })
    expect(loaded.config).toEqual({ shell: "sh" })
  })

  test("config - outside git the walk goes past the directory and the worktree is the directory", async () => {
    const dir = t.mkdir("plain/a")
    t.write("plain/wright.json", { model: "plain/far", shell: "sh" })
    t.write("plain/a/wright.json", { model: "plain/near" })
    const loaded = await loadConfig({ trust: true, directory: dir, env: {}, home: t.home })
    expect(loaded.worktree).toBe(dir)
    expect(loaded.config).toMatchObject({ model: "plain/near", shell: "sh" })
    const ours = loaded.files.filter((file) => file.startsWith(t.root))
    expect(ours).toEqual([path.join(t.root, "plain/wright.json"), path.join(dir, "wright.json")])
  })

  test("config - WRIGHT_CONFIG wins over OPENCODE_CONFIG, which is used when WRIGHT_CONFIG is unset", async () => {
    const wright = t.write("w.json", { model: "w/1" })
    const opencode = t.write("oc.json", { model: "oc/1" })
    const both = await loadConfig({ trust: true, directory: t.repo, env: { WRIGHT_CONFIG: wright, OPENCODE_CONFIG: opencode }, home: t.home })
    expect(both.config.model).toBe("w/1")
    const only = await loadConfig({ trust: true, directory: t.repo, env: { OPENCODE_CONFIG: opencode }, home: t.home })
    expect(only.config.model).toBe("oc/1")
  })

  test("config - WRIGHT_CONFIG naming a missing file is an error", async () => {
    const missing = path.join(t.root, "nope.json")
    const error = await loadConfig({ trust: true, directory: t.repo, env: { WRIGHT_CONFIG: missing }, home: t.home }).catch((e) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toBe(`Invalid config in ${missing}: file not found (named by WRIGHT_CONFIG)`)
  })

  test("config - WRIGHT_PERMISSION merges over the configured permission; OPENCODE_PERMISSION is the fallback", async () => {
    t.write("repo/wright.json", { permission: { bash: { "*": "ask", "git *": "allow" }, edit: "ask" } })
    const env = { WRIGHT_PERMISSION: '{"edit": "deny", "webfetch": "allow"}', OPENCODE_PERMISSION: '"deny"' }
    const loaded = await loadConfig({ trust: true, directory: t.repo, env, home: t.home })
    expect(loaded.config.permission).toEqual({ bash: { "*": "ask", "git *": "allow" }, edit: "deny", webfetch: "allow" })

    const fallback = await loadConfig({ trust: true, directory: t.repo, env: { OPENCODE_PERMISSION: '"deny"' }, home: t.home })
    expect(fallback.config.permission).toMatchObject({ edit: "ask", "*": "deny" })
    expect(Object.keys(fallback.config.permission!)).toEqual(["bash", "edit", "*"])
  })

  test("config - a bad WRIGHT_PERMISSION names the variable and the problem", async () => {
    const bad = await loadConfig({ trust: true, directory: t.repo, env: { WRIGHT_PERMISSION: "{edit: deny" }, home: t.home }).catch((e) => e)
    expect(bad).toBeInstanceOf(ConfigError)
    expect(bad.message).toMatch(/^Invalid config in WRIGHT_PERMISSION: not valid JSON/)
    const wrong = await loadConfig({ trust: true, directory: t.repo, env: { WRIGHT_PERMISSION: '{"edit": "maybe"}' }, home: t.home }).catch((e) => e)
    expect(wrong.message).toBe(
      'Invalid config in WRIGHT_PERMISSION: permission.edit: expected "ask"|"allow"|"deny" or object, received "maybe"',
    )
  })

  test("config - WRIGHT_DISABLE_AUTOCOMPACT turns automatic compaction off", async () => {
    t.write("repo/wright.json", { compaction: { auto: true, reserved: 5000 } })
    const on = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home })
    expect(on.config.compaction).toEqual({ auto: true, reserved: 5000 })
    const off = await loadConfig({ trust: true, directory: t.repo, env: { WRIGHT_DISABLE_AUTOCOMPACT: "1" }, home: t.home })
    expect(off.config.compaction).toEqual({ auto: false, reserved: 5000 })
    const oc = await loadConfig({ trust: true, directory: t.repo, env: { OPENCODE_DISABLE_AUTOCOMPACT: "true" }, home: t.home })
    expect(oc.config.compaction?.auto).toBe(false)
  })

  test("config - WRIGHT_DISABLE_PROJECT_CONFIG skips project files and directories", async () => {
    t.write(globalFile(), { model: "g/1" })
    t.write("repo/wright.json", { model: "p/1" })
    t.mkdir("repo/.wright")
    const loaded = await loadConfig({ trust: true, directory: t.repo, env: { WRIGHT_DISABLE_PROJECT_CONFIG: "1" }, home: t.home })
    expect(loaded.config.model).toBe("g/1")
    expect(loaded.dirs).toEqual([path.join(t.home, ".config/wright")])
  })

  test("config - an unknown top-level key is a warning naming the file, and the rest still loads", async () => {
    const file = t.write("repo/opencode.json", { model: "a/b", keybinds: { leader: "ctrl+x" }, newer_feature: true })
    const loaded = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home })
    expect(loaded.config).toEqual({ model: "a/b" })
    expect(loaded.warnings).toEqual([
      `${file}: unknown key "keybinds" ignored`,
      `${file}: unknown key "newer_feature" ignored`,
    ])
  })

  test("config - an invalid project file rejects with the file and every key path", async () => {
    const file = t.write("repo/wright.json", { model: 42, provider: { local: { options: { baseURL: 1 } } } })
    const error = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home }).catch((e) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.file).toBe(file)
    expect(error.issues).toEqual([
      { path: "model", message: "expected string, received number" },
      { path: "provider.local.options.baseURL", message: "expected string, received number" },
    ])
  })

  test("config - overrides are validated and an error names them", async () => {
    const overrides = { model: 5 } as unknown as { model: string }
    const error = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home, overrides }).catch((e) => e)
    expect(error.message).toBe("Invalid config in overrides: model: expected string, received number")
  })

  test("config - inline content resolves {file:} against the directory", async () => {
    t.write("repo/prompt.txt", "be brief")
    const env = { WRIGHT_CONFIG_CONTENT: '{"agent": {"build": {"prompt": "{file:prompt.txt}"}}}' }
    const { config } = await loadConfig({ trust: true, directory: t.repo, env, home: t.home })
    expect(config.agent?.build?.prompt).toBe("be brief")
  })

  test("config - legacy tools in one file and permission in a later file combine, later file winning", async () => {
    t.write(globalFile(), { tools: { bash: false, write: false } })
    t.write("repo/wright.json", { permission: { bash: "ask" } })
    const { config } = await loadConfig({ trust: true, directory: t.repo, env: {}, home: t.home })
    expect(config.permission).toEqual({ bash: "ask", edit: "deny" })
    expect(config.tools).toBeUndefined()
  })
})

import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { ConfigError } from "../../src/config"
import { createExec, resolveSandbox } from "../../src/process"
import { expandCommand, loadCommands, splitArguments, substituteArguments, type CommandInfo } from "../../src/session/command"
import { runSnippet } from "../../src/session/command-shell"
import { tempDir } from "../lib/tool-context"

const exec = createExec({ env: process.env })
const MODES: Record<string, "primary" | "subagent" | "all"> = { build: "primary", plan: "primary", general: "subagent", explore: "subagent", helper: "all" }

function ctx(directory = tempDir()) {
  return { directory, worktree: directory, agentMode: (name: string) => MODES[name], exec }
}

function cmd(template: string, extra: Partial<CommandInfo> = {}): CommandInfo {
  return { name: "test", template, source: "config", ...extra }
}

function write(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
}

async function textOf(template: string, args = "", directory?: string) {
  const out = await expandCommand(cmd(template), args, ctx(directory))
  const first = out.parts[0]!
  if (first.type !== "text") throw new Error(`expected a text part, got ${first.type}`)
  return first.text
}

describe("command arguments", () => {
  it("command - splits words and keeps quoted strings whole, without their quotes", () => {
    expect(splitArguments(`src/a.ts "two words" 'single quoted' [Image 1] last`)).toEqual(["src/a.ts", "two words", "single quoted", "[Image 1]", "last"])
    expect(splitArguments(`  spaced\tout \n lines `)).toEqual(["spaced", "out", "lines"])
    expect(splitArguments(`x "" y`)).toEqual(["x", "", "y"])
    expect(splitArguments("")).toEqual([])
  })

  it("command - an apostrophe inside a word is not a quote", () => {
    expect(splitArguments("don't stop me")).toEqual(["don't", "stop", "me"])
    expect(splitArguments(`say "it's fine" now`)).toEqual(["say", "it's fine", "now"])
  })

  it("command - $1..$N take arguments in order and the highest placeholder takes the rest", () => {
    expect(substituteArguments("Rename $1 to $2.", `old "new name" extra words`)).toBe("Rename old to new name extra words.")
    expect(substituteArguments("$2 before $1", "a b c")).toBe("b c before a")
    expect(substituteArguments("Only $1", "a b c")).toBe("Only a b c")
  })

  it("command - missing arguments leave their placeholders empty", () => {
    expect(substituteArguments("[$1] [$2] [$3]", "one")).toBe("[one] [] []")
  })

  it("command - $ARGUMENTS is the whole argument string, and values are not substituted again", () => {
    expect(substituteArguments("Task: $ARGUMENTS", `fix "the bug" now`)).toBe(`Task: fix "the bug" now`)
    expect(substituteArguments("$1 and $ARGUMENTS", "$ARGUMENTS $1")).toBe("$ARGUMENTS $1 and $ARGUMENTS $1")
  })

  it("command - a template without placeholders gets the arguments after a blank line", () => {
    expect(substituteArguments("Review the diff.", "focus on tests")).toBe("Review the diff.\n\nfocus on tests")
    expect(substituteArguments("Review the diff.", "   ")).toBe("Review the diff.")
  })
})

describe("command shell snippets", () => {
  it("command - !`cmd` is replaced by its output, run in the project directory", async () => {
    const dir = tempDir()
    const text = await textOf("Greeting: !`echo hi`\nWhere: !`pwd`", "", dir)
    expect(text).toBe(`Greeting: hi\nWhere: ${dir}`)
  })

  it("command - arguments reach the snippet before it runs", async () => {
    expect(await textOf("Echo: !`echo $1-$1`", "abc")).toBe("Echo: abc-abc")
  })

  it("command - a failing snippet becomes its error text, never an exception", async () => {
    expect(await textOf("Out: !`echo oops >&2; exit 3`")).toBe("Out: oops")
    expect(await textOf("Out: !`exit 4`")).toBe("Out: (`exit 4` failed with exit code 4)")
    expect(await textOf("Out: !`no-such-command-wright-test`")).toMatch(/no-such-command-wright-test.*not found/)
    const missingShell = await expandCommand(cmd("Out: !`echo hi`"), "", { ...ctx(), shell: "/no/such/shell" })
    expect(missingShell.parts[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^Out: Error running `echo hi`: .*ENOENT/) })
  })

  it("command - a snippet that runs too long is stopped and says so", async () => {
    // Long enough for the shell to print first, on a loaded machine too.
    const out = await runSnippet("echo started; sleep 20", { exec, cwd: tempDir(), timeoutMs: 900 })
    expect(out).toBe("started\n(`echo started; sleep 20` timed out after 900 ms)")
  })
})

describe("command references", () => {
  it("command - @file and @dir become file parts, @subagent an agent part", async () => {
    const dir = tempDir()
    write(path.join(dir, "notes.md"), "# notes\n")
    write(path.join(dir, "src/app.ts"), "export {}\n")
    write(path.join(dir, "shot.png"), "png")
    const out = await expandCommand(cmd("Read @notes.md and @src, look at @shot.png, then ask @explore."), "", ctx(dir))
    expect(out.subtask).toBe(false)
    expect(out.parts).toEqual([
      { type: "text", text: "Read @notes.md and @src, look at @shot.png, then ask @explore." },
      { type: "file", url: pathToFileURL(path.join(dir, "notes.md")).href, filename: "notes.md", mime: "text/plain" },
      { type: "file", url: pathToFileURL(path.join(dir, "src")).href, filename: "src", mime: "application/x-directory" },
      { type: "file", url: pathToFileURL(path.join(dir, "shot.png")).href, filename: "shot.png", mime: "image/png" },
      { type: "agent", name: "explore" },
    ])
  })

  it("command - e-mail addresses, code spans, missing files, primary agents and repeats add nothing", async () => {
    const dir = tempDir()
    write(path.join(dir, "a.txt"), "a")
    const out = await expandCommand(cmd("Mail me@a.txt, see `@a.txt`, @missing.txt, @build, @a.txt and @a.txt again."), "", ctx(dir))
    expect(out.parts.slice(1)).toEqual([{ type: "file", url: pathToFileURL(path.join(dir, "a.txt")).href, filename: "a.txt", mime: "text/plain" }])
  })

  it("command - @references in the arguments resolve, in a snippet's output they do not", async () => {
    const dir = tempDir()
    write(path.join(dir, "arg.txt"), "x")
    write(path.join(dir, "out.txt"), "y")
    const out = await expandCommand(cmd("Check $1. Output: !`echo @out.txt`"), "@arg.txt", ctx(dir))
    expect(out.parts[0]).toEqual({ type: "text", text: "Check @arg.txt. Output: @out.txt" })
    expect(out.parts.slice(1).map((p) => (p.type === "file" ? p.filename : p.type))).toEqual(["arg.txt"])
  })
})

describe("command subtasks", () => {
  const cases: [string, Partial<CommandInfo>, boolean][] = [
    ["a subagent runs as a subtask", { agent: "explore" }, true],
    ["subtask:false keeps a subagent in the session", { agent: "explore", subtask: false }, false],
    ["subtask:true forces a subtask for a primary agent", { agent: "build", subtask: true }, true],
    ["a primary agent runs in the session", { agent: "build" }, false],
    ["an 'all' agent runs in the session", { agent: "helper" }, false],
    ["no agent runs in the session", {}, false],
  ]
  it.each(cases)("command - %s", async (_, extra, subtask) => {
    const out = await expandCommand(cmd("Find $1", extra), "TODOs", ctx())
    expect(out.subtask).toBe(subtask)
    expect(out.parts[0]!.type).toBe(subtask ? "subtask" : "text")
  })

  it("command - the subtask part carries the expanded prompt, description, agent, model and command name", async () => {
    const info = cmd("Find $1 in !`echo src`", { name: "find", agent: "explore", description: "search the code", model: "prov/model-x" })
    const out = await expandCommand(info, "TODOs", ctx())
    expect(out).toEqual({
      parts: [{ type: "subtask", prompt: "Find TODOs in src", description: "search the code", agent: "explore", model: { providerID: "prov", modelID: "model-x" }, command: "find" }],
      agent: "explore",
      model: { providerID: "prov", modelID: "model-x" },
      subtask: true,
    })
    const plain = await expandCommand(cmd("Go", { name: "go", subtask: true }), "", { ...ctx(), agent: "general" })
    expect(plain.parts).toEqual([{ type: "subtask", prompt: "Go", description: "go", agent: "general", command: "go" }])
  })
})

describe("command loading", () => {
  function dirs() {
    const root = tempDir()
    const global = path.join(root, "global")
    const project = path.join(root, "project/.wright")
    mkdirSync(global, { recursive: true })
    mkdirSync(project, { recursive: true })
    return { global, project }
  }

  it("command - markdown files in command/ and commands/ load with their frontmatter, nested names use /", () => {
    const { global } = dirs()
    write(path.join(global, "command/greet.md"), "---\ndescription: say hello\nagent: explore\nmodel: prov/m1\nsubtask: false\n---\n\nHello $1!\n")
    write(path.join(global, "commands/git/commit.md"), "Write a commit message.\n")
    write(path.join(global, "command/notes.txt"), "not a command")
    const list = loadCommands({ config: {}, dirs: [global] })
    expect(list.map((c) => c.name)).toEqual(["git/commit", "greet", "init", "review"])
    expect(list.find((c) => c.name === "greet")).toEqual({
      name: "greet",
      description: "say hello",
      agent: "explore",
      model: "prov/m1",
      subtask: false,
      template: "Hello $1!",
      source: "markdown",
    })
    expect(list.find((c) => c.name === "git/commit")).toEqual({ name: "git/commit", template: "Write a commit message.", source: "markdown" })
  })

  it("command - the built-in init asks for an AGENTS.md", () => {
    const init = loadCommands({ config: {}, dirs: [] }).find((c) => c.name === "init")!
    expect(init.source).toBe("builtin")
    expect(init.template).toContain("AGENTS.md")
  })

  it("command - project markdown beats global markdown and builtins; config beats both", () => {
    const { global, project } = dirs()
    write(path.join(global, "command/greet.md"), "global greet")
    write(path.join(global, "command/review.md"), "global review")
    write(path.join(project, "command/greet.md"), "project greet")
    write(path.join(project, "command/init.md"), "my own init")
    const config = { command: { review: { template: "config review", description: "from config" } } }
    const byName = Object.fromEntries(loadCommands({ config, dirs: [global, project] }).map((c) => [c.name, c]))
    expect(byName.greet).toMatchObject({ template: "project greet", source: "markdown" })
    expect(byName.init).toMatchObject({ template: "my own init", source: "markdown" })
    expect(byName.review).toEqual({ name: "review", template: "config review", description: "from config", source: "config" })
  })

  it("command - bad frontmatter is a ConfigError naming the file", () => {
    const { global } = dirs()
    const file = path.join(global, "command/broken.md")
    write(file, "---\ndescription: [unclosed\n---\nbody\n")
    expect(() => loadCommands({ config: {}, dirs: [global] })).toThrow(ConfigError)
    expect(() => loadCommands({ config: {}, dirs: [global] })).toThrow(`Invalid config in ${file}: frontmatter:`)
  })

  it("command - a wrongly typed key, a bad model or an empty body names the file and the key", () => {
    const { global } = dirs()
    const file = path.join(global, "command/bad.md")
    write(file, "---\nsubtask: yes please\n---\nbody\n")
    expect(() => loadCommands({ config: {}, dirs: [global] })).toThrow(`Invalid config in ${file}: subtask: expected boolean, received string`)
    write(file, "---\nmodel: gpt4\n---\nbody\n")
    expect(() => loadCommands({ config: {}, dirs: [global] })).toThrow(`Invalid config in ${file}: model: expected "provider/model", received "gpt4"`)
    write(file, "---\ndescription: nothing below\n---\n")
    expect(() => loadCommands({ config: {}, dirs: [global] })).toThrow(`Invalid config in ${file}: template: the file has no prompt`)
    expect(() => loadCommands({ config: { command: { x: { template: "t", model: "nomodel" } } }, dirs: [] })).toThrow("command.x.model")
  })
})

describe("command snippets in the sandbox", () => {
  it("snippet sandbox - a snippet runs inside the App's sandbox: a write outside fails and the prompt says why", async () => {
    const home = tempDir("wright-snippet-sbx-")
    const project = path.join(home, "project")
    mkdirSync(project)
    const box = await resolveSandbox({ config: {}, worktree: project, directory: project, env: process.env, home, restrictReads: false })
    expect(box.state).toBe("on")
    try {
      const out = await runSnippet(`echo x > ${home}/outside.txt`, { exec, sandbox: box, cwd: project })
      expect(existsSync(path.join(home, "outside.txt"))).toBe(false)
      expect(out).toMatch(/Read-only file system\n\(wright's sandbox blocked a write to .*outside\.txt/)
      await runSnippet(`echo inside > in.txt`, { exec, sandbox: box, cwd: project })
      expect(existsSync(path.join(project, "in.txt"))).toBe(true)
    } finally {
      if (box.state === "on") box.dispose()
    }
  })
})

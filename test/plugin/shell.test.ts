import { mkdirSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { createExec } from "../../src/process"
import { createShell, matches, quote } from "../../src/plugin"
import { tempDir } from "../lib/tool-context"

const dir = tempDir("wright-shell-")
const $ = createShell(createExec({ env: { PATH: process.env.PATH, HOME: dir } }), { cwd: dir })

test("plugin shell - interpolations are one word each, however they are spelled", async () => {
  const tricky = `it's a "test" $HOME; rm -rf / \`x\``
  expect(await $`printf '%s|' ${tricky} ${["a b", "c"]} ${42}`.text()).toBe(`${tricky}|a b|c|42|`)
  expect(await $`echo ${{ raw: "$((1+2))" }}`.text()).toBe("3\n")
  expect(quote("plain/path-1.txt")).toBe("plain/path-1.txt")
  expect(quote("")).toBe("''")
})

test("plugin shell - exit codes: a failure rejects with stdout, stderr and exitCode unless nothrow", async () => {
  const err = await $`echo out; echo err >&2; exit 4`.catch((e) => e)
  expect(err.name).toBe("ShellError")
  expect([err.exitCode, err.stdout.toString(), err.stderr.toString()]).toEqual([4, "out\n", "err\n"])
  const r = await $`exit 5`.nothrow().quiet()
  expect(r.exitCode).toBe(5)
  expect(await $.nothrow()`false`.then((o) => o.exitCode)).toBe(1)
})

test("plugin shell - text, json, lines, cwd and env", async () => {
  mkdirSync(path.join(dir, "sub"), { recursive: true })
  expect(await $`pwd`.cwd(path.join(dir, "sub")).text()).toBe(`${path.join(dir, "sub")}\n`)
  expect(await $.cwd(path.join(dir, "sub"))`basename "$PWD"`.text()).toBe("sub\n")
  expect(await $`echo '{"a":[1,2]}'`.json()).toEqual({ a: [1, 2] })
  const lines: string[] = []
  for await (const line of $`printf 'one\ntwo\n\nfour\n'`.lines()) lines.push(line)
  expect(lines).toEqual(["one", "two", "", "four"])
  expect(await $`echo $GREETING`.env({ GREETING: "hi there" }).text()).toBe("hi there\n")
})

test("command hooks - Claude Code's matchers: exact names, alternation, regex, and match-all", () => {
  expect(matches("Bash", "Bash")).toBe(true)
  expect(matches("Bash", "BashOutput")).toBe(false)
  expect(matches("Edit|Write", "Write")).toBe(true)
  expect(matches("Notebook.*", "NotebookEdit")).toBe(true)
  expect(matches("bash", "Bash")).toBe(false)
  for (const all of [undefined, "", "*"]) expect(matches(all, "anything")).toBe(true)
  expect(matches("mcp__(", "mcp__(")).toBe(true)
})

// `wright completion`: the shell script, and the words it asks the binary for.
import { expect, test } from "vitest"
import { sandbox, wright } from "../lib/e2e"

test("completion - prints a bash/zsh script, and completes commands, subcommands and flags", async () => {
  const box = sandbox()
  const run = (...args: string[]) => wright(args, { cwd: box.project, env: box.env })
  const script = await run("completion")
  expect(script.code).toBe(0)
  expect(script.stdout).toContain("###-begin-wright-completions-###")
  expect(script.stdout).toContain("wright --get-yargs-completions")
  const top = (await run("--get-yargs-completions", "wright", "")).stdout.split("\n")
  expect(top).toEqual(expect.arrayContaining(["run", "serve", "mcp", "auth", "completion"]))
  expect(top).not.toContain("$0")
  expect((await run("--get-yargs-completions", "wright", "mcp", "")).stdout.split("\n")).toEqual(expect.arrayContaining(["list", "add", "remove", "auth", "logout", "debug"]))
  expect((await run("--get-yargs-completions", "wright", "serve", "--")).stdout.split("\n")).toEqual(expect.arrayContaining(["--port", "--mdns", "--mdns-domain"]))
}, 60_000)

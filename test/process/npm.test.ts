// Installs into wright's cache (process/npm.ts): a failure is remembered beside the folder so
// an offline machine does not run npm on every edit, but an install that was cut short (the
// App shutting down while npm still ran) is no failure: the next session installs. npm is a
// stand-in script on PATH.
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { createExec, npmInstall } from "../../src/process"
import { tempDir } from "../lib/tool-context"

function fakeNpm(script: string) {
  const dir = tempDir("wright-npm-")
  const bin = path.join(dir, "bin")
  mkdirSync(bin)
  writeFileSync(path.join(bin, "npm"), `#!/bin/sh\n${script}\n`, { mode: 0o755 })
  const exec = createExec({ env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir }, killGrace: 100 })
  return { root: path.join(dir, "cache", "lsp", "x-1.0.0"), exec, dir }
}

const job = (f: ReturnType<typeof fakeNpm>, abort?: AbortSignal) => ({ root: f.root, packages: ["x@1.0.0"], label: "x", hint: "", exec: f.exec, cwd: f.dir, remember: 3_600_000, abort })

test("npm install - a failed install is remembered; the next call runs no npm and says when it failed", async () => {
  const f = fakeNpm("echo 'npm error code ECONNREFUSED' >&2\nexit 1")
  await expect(npmInstall(job(f))).rejects.toThrow(/Could not install x with npm: ECONNREFUSED.*are you offline\?/)
  expect(existsSync(`${f.root}.failed`)).toBe(true)
  await expect(npmInstall(job(f))).rejects.toThrow(/This failure is from/)
})

test("npm install - an install cut short by its abort (the App shutting down) is not remembered: the next call runs npm again", async () => {
  const f = fakeNpm("sleep 30")
  const stop = new AbortController()
  const cut = npmInstall(job(f, stop.signal))
  setTimeout(() => stop.abort(), 300)
  await expect(cut).rejects.toThrow(/it was cancelled/)
  expect(existsSync(`${f.root}.failed`)).toBe(false)
  expect(existsSync(f.root)).toBe(false)
})

// Installing language servers by their own package managers (issue 34): `go install` of a
// pinned module, pip into a virtual environment, a rustup component. This machine reaches no Go
// proxy or Python index, so stand-ins named go, python3 and rustup come first on PATH: each logs
// how wright called it (arguments, folder, environment) and leaves a stand-in server where the
// real tool would put the binary. What is checked is wright's side: the pinned argument, the
// cache folder (never the project), wheels only, once per pin, a failure remembered, and the
// server then started from where the install put it.
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test } from "vitest"
import { createCodeIntel, serverDefs, type CodeIntel } from "../../src/lsp"
import { createExec } from "../../src/process"
import { createFileService, writeTool } from "../../src/tool"
import { tempDir, toolContext } from "../lib/tool-context"

const STUB = path.resolve("test/lsp/fixtures/stub-server.mjs")
// Only the few programs the stand-ins use: the machine's own gopls, rust-analyzer or ruff must not be found.
const BASICS = tempDir("wright-basics-")
for (const tool of ["sh", "mkdir", "chmod", "printf", "cat", "cp", "dirname", "echo"]) symlinkSync(["/usr/bin", "/bin"].map((d) => path.join(d, tool)).find((f) => existsSync(f))!, path.join(BASICS, tool))
/** The stand-in server (speaks LSP, one error per version), copied by the stand-in tools to where the real binary would go. */
const SERVER = path.join(tempDir("wright-stand-in-"), "server")
writeFileSync(SERVER, `#!/bin/sh\nexec '${process.execPath}' '${STUB}' slow-third 0\n`)
chmodSync(SERVER, 0o755)
const open: CodeIntel[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.shutdown()))
})

/** A shell script at `bin/name`. */
function script(bin: string, name: string, body: string) {
  const file = path.join(bin, name)
  writeFileSync(file, `#!/bin/sh\n${body}\n`)
  chmodSync(file, 0o755)
}


function session(bin: string, cache: string, files: Record<string, string>, lsp: Record<string, unknown> = {}) {
  const dir = tempDir("wright-lsp-inst-")
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
  const env = { PATH: `${bin}${path.delimiter}${BASICS}`, HOME: process.env.HOME }
  const progress: string[] = []
  const intel = createCodeIntel({ config: { lsp: { timeout: 3000, ...lsp }, formatter: false } as Record<string, unknown>, exec: createExec({ env, killGrace: 200 }), directory: dir, env, trusted: true, publish: () => {}, cacheDir: cache, progress: (l) => progress.push(l) })
  open.push(intel)
  const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [intel.afterWrite] }) })
  const write = (name: string) => writeTool.execute({ filePath: path.join(dir, name), content: "one\n" }, ctx)
  const late = async (want: string, ms = 30_000) => {
    const deadline = Date.now() + ms
    let all = ""
    while (!all.includes(want) && Date.now() < deadline) {
      all += intel.takeLate(ctx.sessionID) ?? ""
      await new Promise((r) => setTimeout(r, 100))
    }
    return all
  }
  return { dir, write, late, progress }
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : [])

test("lsp install - gopls found nowhere is built with `go install` of its pinned module into the cache, once, and then runs from there", async () => {
  const bin = tempDir("wright-fake-go-")
  const log = path.join(bin, "go.log")
  script(bin, "go", `printf '%s|%s|%s|%s\\n' "$PWD" "$*" "$GOBIN" "$GOFLAGS" >> '${log}'\nmkdir -p "$GOBIN"\ncp '${SERVER}' "$GOBIN/gopls"`)
  const cache = tempDir("wright-lsp-cache-")
  const pin = serverDefs(undefined).find((d) => d.id === "gopls")!.go!
  expect(pin).toMatch(/^golang\.org\/x\/tools\/gopls@v\d+\.\d+\.\d+$/)

  const first = session(bin, cache, { "go.mod": "module m\n" })
  const out = await first.write("main.go")
  expect(out.output).toContain(`The gopls language server was not found, so it is being installed with go install (${pin}) into wright's cache, once`)
  const notes = await first.late("stub error in version")
  expect(notes).toContain("Late diagnostics from the gopls language server")
  const [cwd, args, gobin, goflags] = lines(log)[0]!.split("|")
  expect(args).toBe(`install ${pin}`)
  expect(cwd!.startsWith(cache)).toBe(true)
  expect(gobin!.startsWith(cache)).toBe(true)
  expect(goflags).toBe("-modcacherw")

  // A second session finds the build and runs no go at all.
  const second = session(bin, cache, { "go.mod": "module m\n" })
  await second.write("main.go")
  expect(await second.late("stub error in version")).toContain("from the gopls language server")
  expect(lines(log)).toHaveLength(1)
}, 60_000)

test("lsp install - ruff's server is installed with pip into a virtual environment of its own in the cache, wheels only", async () => {
  const bin = tempDir("wright-fake-py-")
  const log = path.join(bin, "pip.log")
  // python3 -m venv DIR makes DIR/bin/pip; that pip logs its arguments and leaves DIR/bin/ruff.
  script(
    bin,
    "python3",
    `[ "$1 $2" = "-m venv" ] || exit 9\nmkdir -p "$3/bin"\ncat > "$3/bin/pip" <<'PIP'\n#!/bin/sh\nprintf '%s|%s\\n' "$PWD" "$*" >> '${log}'\ncp '${SERVER}' "$(dirname "$0")/ruff"\nPIP\nchmod +x "$3/bin/pip"`,
  )
  const cache = tempDir("wright-lsp-cache-")
  const s = session(bin, cache, { "ruff.toml": "" }, { pyright: { disabled: true } })
  await s.write("a.py")
  expect(await s.late("stub error in version")).toContain("Late diagnostics from the ruff language server")
  const [cwd, args] = lines(log)[0]!.split("|")
  expect(cwd!.startsWith(cache)).toBe(true)
  expect(args).toContain("install --disable-pip-version-check --no-input --only-binary=:all: ruff==")
}, 60_000)

test("lsp install - rust-analyzer is added as a rustup component when rustup is there and the analyzer is not", async () => {
  const bin = tempDir("wright-fake-rustup-")
  const log = path.join(bin, "rustup.log")
  script(bin, "rustup", `printf '%s\\n' "$*" >> '${log}'\ncp '${SERVER}' '${path.join(bin, "rust-analyzer")}'`)
  const s = session(bin, tempDir("wright-lsp-cache-"), { "Cargo.toml": "" })
  await s.write("main.rs")
  expect(await s.late("stub error in version")).toContain("Late diagnostics from the rust language server")
  expect(lines(log)).toEqual(["component add rust-analyzer"])
}, 60_000)

test("lsp install - a go install that fails is reported once, disables the server, and is not run again by the next session", async () => {
  const bin = tempDir("wright-fake-go-")
  const log = path.join(bin, "go.log")
  script(bin, "go", `echo run >> '${log}'\necho "go: golang.org/x/tools/gopls: dial tcp: lookup proxy.golang.org: no such host" >&2\nexit 1`)
  const cache = tempDir("wright-lsp-cache-")
  const first = session(bin, cache, { "go.mod": "module m\n" })
  await first.write("main.go")
  const notes = await first.late("Could not install")
  expect(notes).toContain("Could not install the gopls language server (golang.org/x/tools/gopls@")
  expect(notes).toContain("with go install: go exited with 1 (go: golang.org/x/tools/gopls: dial tcp: lookup proxy.golang.org: no such host)")
  expect(notes).toContain("Install gopls yourself, or set WRIGHT_DISABLE_LSP_DOWNLOAD=1.")

  const second = session(bin, cache, { "go.mod": "module m\n" })
  const out = await second.write("main.go")
  expect(out.output + (await second.late("Could not install", 3000))).toContain("This failure is from")
  expect(lines(log)).toEqual(["run"])
}, 60_000)

// The forty languages of issue 34. Servers that Debian or npm provide here run for real (CI
// installs them: clangd and gopls from Debian, the npm ones as devDependencies): a broken file
// written through the edit tool gets that server's own error back. The servers only shipped as
// prebuilt archives or through registries this machine cannot reach (Lua, Ruby's LSP, Rust's
// analyzer, Zig, Java, …) are checked through their configuration: a stand-in named like the
// real binary is put on PATH, and the test sees it started with the real server's arguments, in
// the folder of its root marker, for its file types. Formatters that Debian provides run for real.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, onTestFinished, test } from "vitest"
import { createCodeIntel, serverDefs, type CodeIntel } from "../../src/lsp"
import { createExec, resolveSandbox } from "../../src/process"
import { createFileService, writeTool } from "../../src/tool"
import { requires, type LanguageTool } from "../lib/requires"
import { tempDir, toolContext } from "../lib/tool-context"

const BIN = path.resolve("node_modules/.bin")
const STUB = path.resolve("test/lsp/fixtures/stub-server.mjs")
// PATH without this repository's node_modules/.bin (npx puts it there): only the system's programs.
const SYSTEM_PATH = (process.env.PATH ?? "").split(path.delimiter).filter((d) => !d.includes("node_modules")).join(path.delimiter)
const open: CodeIntel[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.shutdown()))
})

function project(opts: { pathEnv: string; trusted?: boolean; config?: Record<string, unknown> }) {
  const dir = tempDir("wright-lang-")
  const env = { PATH: opts.pathEnv, HOME: process.env.HOME }
  const intel = createCodeIntel({ config: { lsp: { timeout: 120_000 }, formatter: false, ...opts.config } as Record<string, unknown>, exec: createExec({ env, killGrace: 200 }), directory: dir, env, trusted: opts.trusted ?? true, publish: () => {} })
  open.push(intel)
  const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [intel.afterWrite] }) })
  const write = (name: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    return writeTool.execute({ filePath: path.join(dir, name), content }, ctx)
  }
  /** The late reports the session's next tool result would carry, once they name `want`. */
  const late = async (want: string, ms = 150_000) => {
    const deadline = Date.now() + ms
    let all = ""
    while (!all.includes(want) && Date.now() < deadline) {
      all += intel.takeLate(ctx.sessionID) ?? ""
      await new Promise((r) => setTimeout(r, 150))
    }
    return all
  }
  return { dir, intel, write, late }
}

// --- Real servers -------------------------------------------------------------------------

const REAL: { language: string; server: string; files: Record<string, string>; broken: [string, string]; error: RegExp; needs?: LanguageTool }[] = [
  { language: "C", server: "clangd", needs: "clangd", files: { "compile_flags.txt": "-std=c11\n" }, broken: ["main.c", "int main(void) { return missing; }\n"], error: /Use of undeclared identifier 'missing'/ },
  { language: "Go", server: "gopls", needs: "gopls", files: { "go.mod": "module example.com/m\n\ngo 1.19\n" }, broken: ["main.go", "package main\n\nfunc main() {\n\tmissing()\n}\n"], error: /undeclared name: missing|undefined: missing/ },
  { language: "YAML", server: "yaml", files: {}, broken: ["config.yaml", "a: [1, 2\nb: 3\n"], error: /ERROR \[\d+:\d+\] .*(flow sequence|Missing|expected)/i },
  { language: "JSON", server: "json", files: {}, broken: ["data.json", '{ "a": 1 "b": 2 }\n'], error: /ERROR \[1:\d+\] Expected comma/ },
  { language: "CSS", server: "css", files: {}, broken: ["site.css", "a { color: ; }\n"], error: /ERROR \[1:\d+\] .*expected/i },
  { language: "PHP", server: "php", files: { "composer.json": "{}\n" }, broken: ["index.php", "<?php\n$x = ;\n"], error: /ERROR \[2:\d+\] Unexpected/ },
  { language: "Dockerfile", server: "dockerfile", files: {}, broken: ["Dockerfile", "FROM\nRUN echo hi\n"], error: /ERROR \[1:\d+\] .*(argument|FROM)/i },
]

for (const lang of REAL) {
  // The npm servers are devDependencies; Debian's are installed by .ci/run, and skipped (with the reason) elsewhere.
  test.skipIf(lang.needs ? requires(lang.needs) : false)(`lsp languages - ${lang.language}: the real ${lang.server} server reports the error in a broken file`, async () => {
    const p = project({ pathEnv: `${BIN}${path.delimiter}${SYSTEM_PATH}` })
    for (const [name, text] of Object.entries(lang.files)) writeFileSync(path.join(p.dir, name), text)
    const [name, text] = lang.broken
    const out = await p.write(name, text)
    expect(out.output).toContain(`Diagnostics pending: the ${lang.server} language server is not ready yet`)
    const notes = await p.late("ERROR")
    expect(notes).toContain(`Late diagnostics from the ${lang.server} language server, for ${name}`)
    expect(notes).toMatch(lang.error)
    expect(p.intel.status()).toContainEqual(expect.objectContaining({ id: lang.server, status: "connected" }))
  }, 180_000)
}

test("lsp languages - HTML: the real html server (it reports no errors) answers the lsp tool's document symbols", async () => {
  const p = project({ pathEnv: `${BIN}${path.delimiter}${SYSTEM_PATH}` })
  const file = path.join(p.dir, "index.html")
  writeFileSync(file, '<html><body><main id="app"><h1>Hi</h1></main></body></html>\n')
  const symbols = (await p.intel.queries.query({ operation: "documentSymbol", file }, AbortSignal.timeout(150_000))) as { name: string }[]
  expect(symbols.map((s) => s.name)).toContain("html")
  expect(JSON.stringify(symbols)).toContain("main#app")
  expect(p.intel.status()).toContainEqual(expect.objectContaining({ id: "html", status: "connected" }))
}, 180_000)

// --- Servers through their configuration ---------------------------------------------------

/** A stand-in named like the real binary: logs how it was started, then speaks LSP (one error per version). */
function standIn(bin: string, name: string, log: string) {
  const file = path.join(bin, name)
  writeFileSync(file, `#!/bin/sh\nprintf '%s|%s\\n' "$PWD" "$*" >> '${log}'\nexec '${process.execPath}' '${STUB}' slow-third 0\n`)
  chmodSync(file, 0o755)
}

const THROUGH_CONFIG = ["deno", "vue", "svelte", "astro", "oxlint", "biome", "ruff", "rust", "ruby-lsp", "lua-ls", "terraform", "prisma", "elixir-ls", "zls", "csharp", "fsharp", "sourcekit-lsp", "jdtls", "kotlin-ls", "dart", "ocaml-lsp", "haskell-language-server", "gleam", "clojure-lsp", "nixd", "texlab", "tinymist", "julials"]

test("lsp languages - the catalogue holds about forty servers, each with its extensions, and every one this file names exists", () => {
  const defs = serverDefs(undefined)
  expect(defs.length).toBeGreaterThanOrEqual(38)
  const ids = defs.map((d) => d.id)
  for (const id of [...THROUGH_CONFIG, ...REAL.map((r) => r.server), "html", "typescript", "pyright", "bash"]) expect(ids).toContain(id)
  for (const d of defs) expect(d.extensions.length, d.id).toBeGreaterThan(0)
})

for (const id of THROUGH_CONFIG) {
  test(`lsp languages - ${id} starts from PATH with its own arguments, in the folder of its root marker`, async () => {
    const def = serverDefs(undefined).find((d) => d.id === id)!
    const bin = tempDir("wright-lang-bin-")
    const log = path.join(bin, "starts.log")
    standIn(bin, def.command[0]!, log)
    const p = project({ pathEnv: `${bin}${path.delimiter}${SYSTEM_PATH}` })
    // The project's root for this server is `pkg/`, found from a file two folders below it.
    const marker = def.markers[0]
    const root = marker ? path.join(p.dir, "pkg") : p.dir
    if (marker) {
      mkdirSync(root, { recursive: true })
      writeFileSync(path.join(root, marker.replace("*", "app")), "")
    }
    const ext = def.extensions[0]!
    const name = path.join(marker ? "pkg" : "", "src", "lib", ext.startsWith(".") ? `file${ext}` : ext)
    const out = await p.write(name, "one\n")
    expect(out.output).toContain("Wrote file successfully.")
    const notes = await p.late("stub error in version", 30_000)
    expect(notes).toContain(`Late diagnostics from the ${id} language server`)
    const [cwd, args] = readFileSync(log, "utf8").trim().split("\n")[0]!.split("|")
    expect(cwd).toBe(root)
    expect(args).toBe(def.command.slice(1).join(" "))
  }, 60_000)
}

test("lsp languages - a server that needs its project's marker is not started without it, and TypeScript gives way to Deno", async () => {
  const bin = tempDir("wright-lang-bin-")
  const log = path.join(bin, "starts.log")
  standIn(bin, "deno", log)
  standIn(bin, "typescript-language-server", log)
  const starts = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [])
  const until = async (n: number) => {
    for (let i = 0; i < 200 && starts().length < n; i++) await new Promise((r) => setTimeout(r, 100))
  }
  const plain = project({ pathEnv: `${bin}${path.delimiter}${SYSTEM_PATH}` })
  writeFileSync(path.join(plain.dir, "package.json"), "{}")
  await plain.write("a.ts", "one\n")
  await until(1)
  expect(starts()).toEqual([`${plain.dir}|--stdio`])

  const deno = project({ pathEnv: `${bin}${path.delimiter}${SYSTEM_PATH}` })
  writeFileSync(path.join(deno.dir, "package.json"), "{}")
  writeFileSync(path.join(deno.dir, "deno.json"), "{}")
  await deno.write("a.ts", "one\n")
  expect(await deno.late("stub error in version", 30_000)).toContain("from the deno language server")
  // Only deno started for the second project: the log has its one new line.
  expect(starts()).toEqual([`${plain.dir}|--stdio`, `${deno.dir}|lsp`])
}, 90_000)

// --- Formatters ------------------------------------------------------------------------------

const FORMATTED: { formatter: string; files: Record<string, string>; name: string; before: string; after: string }[] = [
  { formatter: "gofmt", files: {}, name: "main.go", before: "package main\nfunc main(){\nx:=1\n_=x}\n", after: "package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n" },
  { formatter: "shfmt", files: {}, name: "run.sh", before: "if true;then\necho hi\nfi\n", after: "if true; then\n\techo hi\nfi\n" },
  { formatter: "black", files: { "pyproject.toml": "[tool.black]\n" }, name: "a.py", before: "x = {  'a':1 }\n", after: 'x = {"a": 1}\n' },
  { formatter: "clang-format", files: { ".clang-format": "BasedOnStyle: LLVM\n" }, name: "a.c", before: "int main(){return 0;}\n", after: "int main() { return 0; }\n" },
  { formatter: "rustfmt", files: { "Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n' }, name: "main.rs", before: "fn main(){let x=1;}\n", after: "fn main() {\n    let x = 1;\n}\n" },
  { formatter: "rubocop", files: {}, name: "a.rb", before: "x = [1,2]\n", after: "x = [1, 2]\n" },
]

for (const f of FORMATTED) {
  test.skipIf(requires(f.formatter as LanguageTool))(`format languages - the real ${f.formatter} reformats a written file`, async () => {
    const p = project({ pathEnv: SYSTEM_PATH, config: { lsp: false, formatter: true } })
    for (const [name, text] of Object.entries(f.files)) writeFileSync(path.join(p.dir, name), text)
    const out = await p.write(f.name, f.before)
    expect(out.output).toContain(`${f.formatter} reformatted ${f.name} after the write`)
    const text = readFileSync(path.join(p.dir, f.name), "utf8")
    // rubocop adds its magic comment; the rest is the formatted text.
    expect(text.replace("# frozen_string_literal: true\n\n", "")).toBe(f.after)
  }, 60_000)
}

test("format languages - a formatter that lives in the project (Laravel's pint in vendor/bin) runs only in a trusted folder", async () => {
  const setup = (dir: string) => {
    writeFileSync(path.join(dir, "composer.json"), JSON.stringify({ "require-dev": { "laravel/pint": "^1" } }))
    mkdirSync(path.join(dir, "vendor", "bin"), { recursive: true })
    const pint = path.join(dir, "vendor", "bin", "pint")
    writeFileSync(pint, `#!/bin/sh\necho ran >> '${path.join(dir, "pint.log")}'\n`)
    chmodSync(pint, 0o755)
  }
  const dir = tempDir("wright-lang-")
  setup(dir)
  const env = { PATH: SYSTEM_PATH, HOME: process.env.HOME }
  const box = await resolveSandbox({ config: {}, worktree: dir, directory: dir, env, home: process.env.HOME!, restrictReads: true })
  onTestFinished(() => (box.state === "on" ? box.dispose() : undefined))
  const intel = createCodeIntel({ config: { lsp: false }, exec: createExec({ env }), directory: dir, env, trusted: false, sandbox: box, publish: () => {} })
  const ctx = toolContext({ directory: dir, files: createFileService({ edited: () => {}, afterWrite: [intel.afterWrite] }) })
  const untrusted = { dir, write: (name: string, content: string) => writeTool.execute({ filePath: path.join(dir, name), content }, ctx) }
  const out = await untrusted.write("a.php", "<?php echo 1;\n")
  expect(out.output).toContain("pint was not found on PATH")
  expect(() => readFileSync(path.join(untrusted.dir, "pint.log"))).toThrow()

  const trusted = project({ pathEnv: SYSTEM_PATH, trusted: true, config: { lsp: false, formatter: true } })
  setup(trusted.dir)
  await trusted.write("a.php", "<?php echo 1;\n")
  expect(readFileSync(path.join(trusted.dir, "pint.log"), "utf8")).toBe("ran\n")
}, 60_000)

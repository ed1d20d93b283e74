// What a test file needs from the machine beyond Node and npm (a browser, tmux, bubblewrap,
// git). A file whose need is missing skips its tests (`test.skipIf(requires("tmux"))`) instead
// of failing, and says why: under `npm test` (scripts/test.mjs sets WRIGHT_TEST_SKIPS) each
// reason is appended to that file, and the summary prints it. CI installs them all (.ci/run)
// and sets WRIGHT_TEST_NO_SKIP=1, which turns a missing one into a failure.
import { accessSync, appendFileSync, constants } from "node:fs"
import path from "node:path"

export type Need = "chromium" | "tmux" | "bwrap" | "git" | LanguageTool

/** The language servers and formatters Debian provides that test/lsp/languages.test.ts runs for real. */
export type LanguageTool = "clangd" | "gopls" | "gofmt" | "shfmt" | "black" | "clang-format" | "rustfmt" | "rubocop"

const debian = (tests: string, pkg: string, name: string) => ({ tests, install: `apt-get install ${pkg}`, names: [name] })

const WHAT: Record<Need, { tests: string; install: string; names: string[] }> = {
  chromium: { tests: "browser tests", install: "apt-get install chromium", names: ["chromium", "chromium-browser", "google-chrome"] },
  tmux: { tests: "terminal UI tests", install: "apt-get install tmux", names: ["tmux"] },
  bwrap: { tests: "sandbox tests", install: "apt-get install bubblewrap", names: ["bwrap"] },
  git: { tests: "git tests", install: "apt-get install git", names: ["git"] },
  clangd: debian("the C language server test", "clangd", "clangd"),
  gopls: debian("the Go language server test", "gopls golang-go", "gopls"),
  gofmt: debian("the gofmt test", "golang-go", "gofmt"),
  shfmt: debian("the shfmt test", "shfmt", "shfmt"),
  black: debian("the black test", "black", "black"),
  "clang-format": debian("the clang-format test", "clang-format", "clang-format"),
  rustfmt: debian("the rustfmt test", "rustfmt", "rustfmt"),
  rubocop: debian("the rubocop test", "rubocop", "rubocop"),
}

/** The first executable named `names` on PATH, or undefined. */
export function onPath(names: string[], PATH = process.env.PATH ?? ""): string | undefined {
  for (const dir of PATH.split(path.delimiter).filter(Boolean)) {
    for (const name of names) {
      const file = path.join(dir, name)
      try {
        accessSync(file, constants.X_OK)
        return file
      } catch {
        // not here
      }
    }
  }
  return undefined
}

/** The Chromium the browser tests drive: $WRIGHT_CHROMIUM, else the first one on PATH. */
export function chromiumPath(): string | undefined {
  return process.env.WRIGHT_CHROMIUM || onPath(WHAT.chromium.names)
}

/** Why `need`'s tests are skipped ("browser tests (no chromium: apt-get install chromium)"). */
export function skipReason(need: Need): string {
  const w = WHAT[need]
  return `${w.tests} (no ${need}: ${w.install})`
}

/**
 * False when `need` is on this machine; else the reason its tests are skipped, which is also
 * recorded for the test summary. Made for `test.skipIf(requires("tmux"))`.
 */
export function requires(need: Need): false | string {
  const found = need === "chromium" ? chromiumPath() : onPath(WHAT[need].names)
  if (found) return false
  const reason = skipReason(need)
  // CI installs everything (.ci/run): there a missing tool is a failure, never a quiet skip.
  if (process.env.WRIGHT_TEST_NO_SKIP === "1") throw new Error(`${reason}, and WRIGHT_TEST_NO_SKIP=1 forbids skipping them`)
  const log = process.env.WRIGHT_TEST_SKIPS
  if (log) appendFileSync(log, reason + "\n")
  return reason
}

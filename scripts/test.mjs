// `npm test`: typecheck, layering lint, build, then vitest. Ends with the plain line
// "N passed, N failed" (and ", N skipped" when some were), counted from vitest's JSON report,
// and fails when no test ran. Tests that need what this machine lacks (chromium, tmux,
// bubblewrap, git: test/lib/requires.ts) are skipped, not failed; each reason is printed above
// that line as "skipped: <tests> (no <tool>: <how to install it>)".
// Extra arguments go to vitest (e.g. `npm test -- test/tool`); WRIGHT_TEST_QUICK=1 skips
// the typecheck and lint steps for a fast local loop, and WRIGHT_TEST_NO_BUILD=1 the build too
// (the tests then use the dist/ already there; a test that runs this script sets it).
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"

const bin = (name) => `node_modules/.bin/${name}`
const quick = process.env.WRIGHT_TEST_QUICK === "1"

function step(title, cmd, args) {
  process.stderr.write(`\n== ${title}\n`)
  const r = spawnSync(cmd, args, { stdio: "inherit" })
  if (r.status !== 0) {
    process.stderr.write(`\n${title} failed (exit ${r.status ?? r.signal})\n`)
    console.log("0 passed, 0 failed")
    process.exit(1)
  }
}

if (!quick) {
  step("typecheck", bin("tsc"), ["--noEmit", "-p", "."])
  step("lint: import directions", bin("depcruise"), ["src", "--config", ".dependency-cruiser.cjs", "--output-type", "err"])
}
if (process.env.WRIGHT_TEST_NO_BUILD !== "1") step("build", process.execPath, ["scripts/build.mjs"])

// Per run: a test may run this script itself (test/cli/test-command.test.ts).
const work = mkdtempSync(path.join(os.tmpdir(), "wright-test-"))
const report = path.join(work, "vitest-report.json")
// test/lib/requires.ts appends the reason of each skip here (from every test worker).
const skips = path.join(work, "skipped.txt")
process.stderr.write("\n== tests\n")
const r = spawnSync(
  bin("vitest"),
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { stdio: "inherit", env: { ...process.env, WRIGHT_TEST_SKIPS: skips } },
)

let passed = 0
let failed = 0
let skipped = 0
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, "utf8"))
  passed = json.numPassedTests ?? 0
  skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0)
  // A file that failed to load has no failed test in it: count it once. A file whose tests
  // failed is already counted by its tests.
  const brokenFiles = (json.testResults ?? []).filter((f) => f.status === "failed" && !(f.assertionResults ?? []).some((t) => t.status === "failed")).length
  failed = (json.numFailedTests ?? 0) + brokenFiles
}
const reasons = existsSync(skips) ? [...new Set(readFileSync(skips, "utf8").split("\n").filter(Boolean))].sort() : []
rmSync(work, { recursive: true, force: true })
for (const reason of reasons) console.log(`skipped: ${reason}`)
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`)
if (r.status !== 0 || failed > 0) process.exit(1)
if (passed === 0 && skipped === 0) {
  console.error("no test ran")
  process.exit(1)
}

// `npm test`: typecheck, layering lint, build, then vitest. Ends with the plain line
// "N passed, N failed", counted from vitest's JSON report, and fails when no test ran.
// Extra arguments go to vitest (e.g. `npm test -- test/tool`); WRIGHT_TEST_QUICK=1 skips
// the typecheck and lint steps for a fast local loop.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs"

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
step("build", process.execPath, ["scripts/build.mjs"])

mkdirSync(".tmp", { recursive: true })
const report = ".tmp/vitest-report.json"
rmSync(report, { force: true })
process.stderr.write("\n== tests\n")
const r = spawnSync(
  bin("vitest"),
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { stdio: "inherit" },
)

let passed = 0
let failed = 0
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, "utf8"))
  passed = json.numPassedTests ?? 0
  // A file that failed to load has no failed test in it: count it once. A file whose tests
  // failed is already counted by its tests.
  const brokenFiles = (json.testResults ?? []).filter((f) => f.status === "failed" && !(f.assertionResults ?? []).some((t) => t.status === "failed")).length
  failed = (json.numFailedTests ?? 0) + brokenFiles
}
console.log(`${passed} passed, ${failed} failed`)
if (r.status !== 0 || failed > 0) process.exit(1)
if (passed === 0) {
  console.error("no test ran")
  process.exit(1)
}

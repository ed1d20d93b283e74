// How long the bash permission analysis takes: the first call (which loads the wasm
// parser) and warm calls over typical and adversarial commands.
// Run: npx tsx bench/permission-bash.ts
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { performance } from "node:perf_hooks"
import { analyzeBash } from "../src/permission"

const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "wright-bench-perm-")))
fs.mkdirSync(path.join(project, "src"))
for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(project, "src", `f${i}.ts`), "")

const COMMANDS: Record<string, string> = {
  simple: "git status",
  list: 'git add -A && git commit -m "fix: the thing" && git push origin main',
  pipeline: "grep -rn TODO src | sort | uniq -c | sort -rn | head -20",
  wrappers: "sudo -u root timeout 5 nice -n 10 env FOO=1 npm run build -- --watch",
  nested: `bash -c "eval 'echo \\$(date) && ls src/*.ts | xargs wc -l'"`,
  paths: "cp src/*.ts /tmp/out/ && cat ../README.md > ~/notes.txt",
  heredoc: "cat <<'EOF' > notes.md\n# notes\n\nsome text\nEOF",
  long: Array.from({ length: 200 }, (_, i) => `echo ${i} >> src/out.txt`).join(" && "),
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

const opts = { cwd: project, project }
const t0 = performance.now()
await analyzeBash("ls", opts)
console.log(`first analysis (loads web-tree-sitter + bash grammar): ${(performance.now() - t0).toFixed(1)} ms`)

const runs = 200
for (const [name, command] of Object.entries(COMMANDS)) {
  for (let i = 0; i < 20; i++) await analyzeBash(command, opts)
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await analyzeBash(command, opts)
    times.push(performance.now() - start)
  }
  const p95 = [...times].sort((a, b) => a - b)[Math.floor(runs * 0.95)]
  console.log(`${name.padEnd(9)} ${String(command.length).padStart(5)} chars  median ${median(times).toFixed(3)} ms  p95 ${p95.toFixed(3)} ms`)
}

fs.rmSync(project, { recursive: true, force: true })

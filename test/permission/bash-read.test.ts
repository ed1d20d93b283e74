// The bash gate played by an attacker who wants a file the read rules protect: `.env` (asked
// by the built-in defaults) and `secret/*` (denied by the user). A shell read must meet the
// same rules as the read tool, through symlinks too. Requests are judged as the service
// judges them (any deny denies; any ask or forceAsk asks).
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { analyzeBash, defaults, fromConfig, judge, merge } from "../../src/permission"
import type { Ruleset } from "../../src/protocol"

let project: string
let ruleset: Ruleset

beforeAll(() => {
  project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "wright-perm-read-")))
  fs.writeFileSync(path.join(project, ".env"), "API_KEY=sk-live-123\n")
  fs.writeFileSync(path.join(project, ".env.example"), "API_KEY=\n")
  fs.mkdirSync(path.join(project, "secret"))
  fs.writeFileSync(path.join(project, "secret", "key.txt"), "private\n")
  fs.mkdirSync(path.join(project, "src"))
  fs.writeFileSync(path.join(project, "src", "a.ts"), "export const a = 1\n")
  fs.writeFileSync(path.join(project, "data.json"), "{}\n")
  fs.symlinkSync(".env", path.join(project, "notes.txt"))
  fs.symlinkSync("secret", path.join(project, "link"))
  ruleset = merge(defaults({ toolOutputDir: path.join(project, ".out") }), fromConfig({ read: { "secret/*": "deny" } }))
})

afterAll(() => fs.rmSync(project, { recursive: true, force: true }))

async function decide(command: string): Promise<"allow" | "ask" | "deny"> {
  let outcome: "allow" | "ask" = "allow"
  for (const r of await analyzeBash(command, { cwd: project, project })) {
    const verdict = judge(r.permission, r.patterns, ruleset, [], { forceAsk: r.forceAsk })
    if (verdict.action === "deny") return "deny"
    if (verdict.action === "ask") outcome = "ask"
  }
  return outcome
}

const ENV_READS = [
  "cat .env",
  "cat notes.txt",
  "cat ./.env",
  "cat src/../.env",
  "cat .e*",
  "head -n 5 .env",
  "tail -f .env",
  "less .env",
  "more notes.txt",
  "grep KEY .env",
  "grep -e KEY notes.txt",
  "grep -f .env src/a.ts",
  "rg -n KEY .env",
  "egrep KEY .env",
  "sed -n 1p .env",
  "sed -f .env src/a.ts",
  "awk '{print}' .env",
  "awk -F= '{print $2}' notes.txt",
  "cp .env src/copy.txt",
  "mv notes.txt src/",
  "source .env",
  ". ./.env",
  "base64 .env",
  "xxd .env",
  "od -c .env",
  "strings .env",
  "diff .env .env.example",
  "wc -c .env",
  "sort .env",
  "nl .env",
  "tac .env",
  "cut -d= -f2 .env",
  "jq . .env",
  "jq --rawfile k .env -n '$k'",
  "cat < .env",
  "while read l; do echo $l; done < notes.txt",
  "tr a-z A-Z < .env",
  "sudo cat .env",
  "timeout 5 cat .env",
  "echo $(cat .env)",
  "dd if=.env of=/dev/stdout",
  "hexdump -C .env",
  "cd src && cat ../.env",
]

const SECRET_READS = [
  "cat secret/key.txt",
  "cat link/key.txt",
  "cat link/*",
  "grep -r x link/key.txt",
  "head link/key.txt",
  "base64 link/key.txt",
  "cat < link/key.txt",
  "cp link/key.txt src/",
]

const HARMLESS = [
  "cat src/a.ts",
  "cat .env.example",
  "grep -rn TODO src",
  "grep KEY",
  "jq .name data.json",
  "wc -l src/a.ts data.json",
  "sort < data.json",
  "cp src/a.ts src/b.ts",
  "echo .env",
  "grep -e secret/key.txt src/a.ts",
  "awk '/secret\\/key.txt/' src/a.ts",
  "touch .env.local.bak",
]

describe("bash read rules", () => {
  it.each(ENV_READS)("bash read rules - %j asks as reading .env does", async (command) => {
    expect(await decide(command)).toBe("ask")
  })

  it.each(SECRET_READS)("bash read rules - %j meets the secret/* deny", async (command) => {
    expect(await decide(command)).toBe("deny")
  })

  it.each(HARMLESS)("bash read rules - harmless %j is allowed", async (command) => {
    expect(await decide(command)).toBe("allow")
  })

  it("bash read rules - the read request carries the literal and resolved paths, relative to the worktree", async () => {
    const requests = await analyzeBash("cat notes.txt link/key.txt && cat ../a.ts", { cwd: path.join(project, "src"), project, worktree: project })
    expect(requests.map((r) => r.permission)).toEqual(["read", "bash"])
    expect(requests[0]).toMatchObject({ patterns: ["src/notes.txt", "src/link/key.txt", "a.ts"], always: ["*"] })
    const fromRoot = await analyzeBash("cat notes.txt link/key.txt", { cwd: project, project })
    expect(fromRoot[0]).toMatchObject({ permission: "read", patterns: ["notes.txt", ".env", "link/key.txt", "secret/key.txt"] })
  })
})

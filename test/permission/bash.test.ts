import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BashRequest, analyzeBash, arityPrefix } from "../../src/permission"

let project: string
let outside: string

beforeAll(() => {
  project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "wright-perm-bash-")))
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "wright-perm-bash-out-")))
  fs.mkdirSync(path.join(project, "src"))
  fs.symlinkSync(outside, path.join(project, "out-link"))
})

afterAll(() => {
  fs.rmSync(project, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

const analyze = (command: string, cwd = project) => analyzeBash(command, { cwd, project })

async function bashRequest(command: string): Promise<BashRequest> {
  const request = (await analyze(command)).find((r) => r.permission === "bash")
  if (!request) throw new Error(`no bash request for ${command}`)
  return request
}

describe("arityPrefix", () => {
  it.each([
    [["git", "commit", "-m", "x"], ["git", "commit"]],
    [["git", "-C", "dir", "push", "origin"], ["git", "push"]],
    [["git", "stash", "pop"], ["git", "stash", "pop"]],
    [["npm", "install", "react"], ["npm", "install"]],
    [["npm", "run", "build", "--", "--watch"], ["npm", "run", "build"]],
    [["docker", "compose", "up", "-d"], ["docker", "compose", "up"]],
    [["kubectl", "-n", "prod", "get", "pods"], ["kubectl", "get"]],
    [["gh", "pr", "list"], ["gh", "pr", "list"]],
    [["cargo", "+nightly", "build"], ["cargo", "build"]],
    [["ls", "-la", "src"], ["ls"]],
    [["my-script", "a", "b"], ["my-script"]],
    [[], []],
  ])("arityPrefix - %j names %j", (tokens, prefix) => {
    expect(arityPrefix(tokens)).toEqual(prefix)
  })
})

describe("bash analysis", () => {
  it("bash analysis - one pattern per command with quotes removed; always is the arity prefix", async () => {
    const request = await bashRequest('git commit -m "fix the bug" && npm run build -- --watch')
    expect(request.patterns).toEqual(["git commit -m fix the bug", "npm run build -- --watch"])
    expect(request.always).toEqual(["git commit *", "npm run build *"])
    expect(request.forceAsk).toBeUndefined()
    expect(request.metadata.commands).toEqual([
      { text: "git commit -m fix the bug", name: "git", args: ["commit", "-m", "fix the bug"] },
      { text: "npm run build -- --watch", name: "npm", args: ["run", "build", "--", "--watch"] },
    ])
  })

  it("bash analysis - options before a subcommand also give a pattern without them", async () => {
    const request = await bashRequest("git -C src --no-pager push origin main")
    expect(request.patterns).toEqual(["git -C src --no-pager push origin main", "git push origin main"])
    expect(request.always).toEqual(["git -C src --no-pager push *", "git push *"])
  })

  it("bash analysis - wrappers are looked through and give patterns for both levels", async () => {
    const request = await bashRequest("sudo -u root timeout 5 rm -rf build")
    expect(request.patterns).toContain("rm -rf build")
    expect(request.patterns).toContain("sudo -u root timeout 5 rm -rf build")
    expect(request.patterns).toContain("sudo timeout rm -rf build")
    expect(request.always).toContain("rm *")
    expect(request.always).toContain("timeout rm *")
    expect(request.always).toContain("sudo timeout rm *")
  })

  it("bash analysis - a command named by path also meets rules for its base name", async () => {
    const request = await bashRequest("/usr/bin/git push")
    expect(request.patterns).toEqual(["/usr/bin/git push", "git push"])
    expect(request.always).toEqual(["/usr/bin/git push *", "git push *"])
  })

  it("bash analysis - commands inside bash -c strings, eval text and substitutions are found", async () => {
    const request = await bashRequest(`bash -c "make test" && eval 'echo $(date)' && echo "$(whoami)" \`id\``)
    for (const p of ["make test", "echo $(date)", "date", "whoami", "id"]) expect(request.patterns).toContain(p)
  })

  it("bash analysis - a quoted here-document fed to a shell is analysed as a script", async () => {
    const request = await bashRequest("bash <<'EOF'\ngit push --force\nEOF")
    expect(request.patterns).toContain("git push --force")
    expect(request.forceAsk).toBeUndefined()
  })

  it("bash analysis - a plain cd is left out of the bash patterns", async () => {
    const requests = await analyze("cd src && ls")
    expect(requests).toEqual([expect.objectContaining({ permission: "bash", patterns: ["ls"] })])
  })

  it("bash analysis - paths outside the project come first as one external_directory request", async () => {
    const requests = await analyze(`cat /etc/hosts > ${outside}/copy.txt; rm out-link/x`)
    // cat reads /etc/hosts: that read is asked too, after the directories and before the commands.
    expect(requests.map((r) => r.permission)).toEqual(["external_directory", "read", "bash"])
    expect(requests[1].patterns).toEqual(["/etc/hosts"])
    expect(requests[0].patterns).toEqual(["/etc/*", `${outside}/*`])
    expect(requests[0].always).toEqual(requests[0].patterns)
    expect(requests[0].metadata.paths).toEqual(["/etc/hosts", `${outside}/copy.txt`])
  })

  it("bash analysis - a working directory outside the project is asked about", async () => {
    const requests = await analyze("ls", outside)
    expect(requests[0]).toMatchObject({ permission: "external_directory", patterns: [`${outside}/*`] })
  })

  it("bash analysis - /dev/null and friends are not outside directories", async () => {
    const requests = await analyze("ls 2>/dev/null >&2 < /dev/stdin")
    expect(requests.map((r) => r.permission)).toEqual(["bash"])
  })

  it("bash analysis - a cd may fail, so later relative paths are checked from every directory", async () => {
    const requests = await analyze("cd src || touch ../x")
    expect(requests[0]).toMatchObject({ permission: "external_directory", patterns: [`${path.dirname(project)}/*`] })
  })

  it("bash analysis - globs are expanded against the file system before the check", async () => {
    const requests = await analyze("cat out-l*/secret")
    expect(requests[0]).toMatchObject({ permission: "external_directory", patterns: [`${outside}/*`] })
  })

  it("bash analysis - what is only known at run time forces an ask and says why", async () => {
    const request = await bashRequest('$EDITOR notes.txt; rm -rf "$DIR"')
    expect(request.forceAsk).toBe(true)
    expect(request.patterns).toEqual(["$EDITOR notes.txt", 'rm -rf "$DIR"'])
    expect(request.metadata.unknown).toEqual([
      "the command name $EDITOR is only known when the command runs",
      'the path "$DIR" is only known when the command runs',
    ])
  })

  it("bash analysis - a command the parser cannot read is asked about with its full text", async () => {
    const request = await bashRequest("echo 'unterminated")
    expect(request.forceAsk).toBe(true)
    expect(request.patterns).toContain("echo 'unterminated")
  })

  it("bash analysis - assignments alone still make a bash request; comments alone make none", async () => {
    expect((await bashRequest("X=1")).patterns).toEqual(["X=1"])
    expect(await analyze("# nothing to run\n")).toEqual([])
    expect(await analyze("   ")).toEqual([])
  })

  // Each of these hung (exponential regex backtracking) or crashed in a naive analysis.
  it.each([
    ["an unclosed brace with many commas", "echo {" + ",".repeat(100_000) + " x", false],
    ["a sed script of backslashes", "sed 's/" + "\\\\".repeat(40) + "' f", false],
    ["a long awk program", "awk '" + "print ".repeat(20_000) + "'", false],
    ["many $'\\x41' escapes", "echo $'" + "\\x41".repeat(30_000) + "'", false],
    ["a long run of spaces", " ".repeat(100_000) + "x", false],
    ["5000 nested substitutions", "echo " + "$(".repeat(5000) + "x" + ")".repeat(5000), true],
    ["20000 nested subshells", "(".repeat(20_000) + "ls" + ")".repeat(20_000), true],
  ])("bash analysis - a pathological command still gets an answer: %s", async (_name, command, forced) => {
    const request = await bashRequest(command)
    expect(request.forceAsk === true).toBe(forced)
  })

  it("bash analysis - find -delete counts as rm of its start paths", async () => {
    const request = await bashRequest("find src -name '*.log' -delete")
    expect(request.patterns).toEqual(["find src -name *.log -delete", "rm src"])
  })
})

// The OS sandbox at the spawner, with the real bubblewrap: what a sandboxed command can write,
// read and reach, that nothing it starts outlives it, that git still commits, and what
// happens when bwrap is missing or broken. These tests run as root on CI: a write outside
// still fails because bwrap mounts everything but the writable paths read-only (the kernel
// answers EROFS whatever the uid), and the command gets no capabilities to remount them.
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import net from "node:net"
import path from "node:path"
import { afterEach, describe as base, expect, test, vi } from "vitest"
import { createExec, readRestriction, resolveSandbox, type Child, type Sandbox } from "../../src/process"
import { tempDir } from "../lib/tool-context"
import { requires } from "../lib/requires"

// The sandbox is bubblewrap: without bwrap these tests are skipped, saying so.
const describe = base.skipIf(requires("bwrap"))

const env = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR }
const exec = createExec({ env, killGrace: 500 })
const disposers: (() => void)[] = []
afterEach(() => {
  for (const d of disposers.splice(0)) d()
})

function gitRepo(dir: string) {
  execFileSync("git", ["init", "-q", dir])
  execFileSync("git", ["-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init"])
}

/** A home holding a secret, a project inside it (a git repo), and the App's sandbox over them. */
async function setup(opts: { config?: Parameters<typeof resolveSandbox>[0]["config"]; restrictReads?: boolean; git?: boolean } = {}) {
  const home = tempDir("wright-sbx-home-")
  const project = path.join(home, "project")
  mkdirSync(project)
  if (opts.git !== false) gitRepo(project)
  writeFileSync(path.join(home, "secret.txt"), "the user's secret\n")
  const box = await resolveSandbox({ config: opts.config, worktree: project, directory: project, env, home, restrictReads: opts.restrictReads ?? false })
  if (box.state === "on") disposers.push(box.dispose)
  return { home, project, box }
}

async function sh(script: string, cwd: string, sandbox: Sandbox | "off", timeout?: number): Promise<{ code: number | null; out: string; child: Child }> {
  const child = await exec(["bash", "-c", script], { cwd, sandbox, timeout })
  let out = ""
  child.stdout.on("data", (b: Buffer) => (out += b))
  child.stderr.on("data", (b: Buffer) => (out += b))
  const done = await child.done
  return { code: done.code, out, child }
}

function processesNamed(marker: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ")
      const state = readFileSync(`/proc/${entry}/stat`, "utf8")
      if (cmd.includes(marker) && !/^\d+ \(.*\) Z/.test(state)) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

describe("sandbox - on (workspace-write)", () => {
  test("sandbox - the private temp dir is made by the first sandboxed command and removed at dispose; none without a command", async () => {
    const tmp = tempDir("wright-sbx-tmp-")
    const resolve = () => resolveSandbox({ config: undefined, worktree: tmp, directory: tmp, env: { ...env, TMPDIR: tmp }, home: tmp, restrictReads: false })
    const idle = await resolve()
    expect(idle.state).toBe("on")
    expect(readdirSync(tmp)).toEqual([])
    if (idle.state === "on") idle.dispose()

    const box = await resolve()
    if (box.state !== "on") throw new Error("no sandbox")
    const r = await sh(`echo t > "$TMPDIR/t" && echo "$TMPDIR"`, tmp, box)
    const made = r.out.trim()
    expect(path.dirname(made)).toBe(tmp)
    expect(readFileSync(path.join(made, "t"), "utf8")).toBe("t\n")
    box.dispose()
    expect(readdirSync(tmp)).toEqual([])

    // A race: two first commands started at once share one private dir (0700, not the shared
    // TMPDIR itself), so neither lands in the other's or in a folder someone else made.
    const raced = await resolve()
    if (raced.state !== "on") throw new Error("no sandbox")
    const [a, b] = await Promise.all([sh(`echo "$TMPDIR"`, tmp, raced), sh(`echo "$TMPDIR"`, tmp, raced)])
    expect(a.out.trim()).toBe(b.out.trim())
    expect(a.out.trim()).not.toBe(tmp)
    expect(readdirSync(tmp)).toEqual([path.basename(a.out.trim())])
    expect(statSync(a.out.trim()).mode & 0o777).toBe(0o700)
    raced.dispose()
  })

  test("sandbox - a write outside the project fails with EROFS; the project and $TMPDIR are writable", async () => {
    const { home, project, box } = await setup()
    expect(box.state).toBe("on")
    const r = await sh(`echo x > ${home}/outside.txt; echo y > inside.txt && echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"`, project, box)
    expect(r.out).toMatch(/outside\.txt: Read-only file system/)
    expect(existsSync(path.join(home, "outside.txt"))).toBe(false)
    expect(readFileSync(path.join(project, "inside.txt"), "utf8")).toBe("y\n")
    expect(r.out).toContain("tmp\n")
    // The model is told it was the sandbox.
    const blocked = box.state === "on" ? box.explain(r.out) : undefined
    expect(blocked).toMatchObject({ kind: "write", path: path.join(home, "outside.txt") })
    // Unsandboxed, the same write lands: the test can fail both ways.
    await sh(`echo x > ${home}/outside.txt`, project, "off")
    expect(existsSync(path.join(home, "outside.txt"))).toBe(true)
  })

  test("sandbox - root inside cannot remount or unmount its way out (no capabilities)", async () => {
    const { home, project, box } = await setup()
    const r = await sh(`mount -o remount,rw / 2>&1; umount ${project}/.git/hooks 2>&1; echo x > ${home}/after-remount.txt; echo x > .git/hooks/pre-commit`, project, box)
    expect(existsSync(path.join(home, "after-remount.txt"))).toBe(false)
    expect(existsSync(path.join(project, ".git/hooks/pre-commit"))).toBe(false)
    expect(r.out).toMatch(/Read-only file system/)
  })

  test("sandbox - git commit works inside; .git/hooks and .git/config stay read-only", async () => {
    const { project, box } = await setup()
    const r = await sh(
      `echo a > a.txt && git add a.txt && git -c user.email=t@t -c user.name=t commit -q -m "from the sandbox" && echo committed; echo evil > .git/hooks/post-commit; git config core.fsmonitor "touch /tmp/pwned"; echo`,
      project,
      box,
    )
    expect(r.out).toContain("committed")
    expect(execFileSync("git", ["-C", project, "log", "-1", "--format=%s"], { encoding: "utf8" }).trim()).toBe("from the sandbox")
    expect(existsSync(path.join(project, ".git/hooks/post-commit"))).toBe(false)
    expect(readFileSync(path.join(project, ".git/config"), "utf8")).not.toContain("fsmonitor")
    expect(r.out).toMatch(/post-commit: Read-only file system/)
  })

  test("sandbox - .wright and .opencode inside the project are read-only", async () => {
    const { project } = await setup()
    mkdirSync(path.join(project, ".wright"))
    mkdirSync(path.join(project, ".opencode"))
    // Resolved after the folders exist; they are also checked again at each call.
    const box = await resolveSandbox({ config: {}, worktree: project, directory: project, env, home: project, restrictReads: false })
    if (box.state === "on") disposers.push(box.dispose)
    await sh(`echo '{}' > .wright/wright.json; mkdir -p .opencode/plugin; echo ok > ok.txt`, project, box)
    expect(existsSync(path.join(project, ".wright/wright.json"))).toBe(false)
    expect(existsSync(path.join(project, ".opencode/plugin"))).toBe(false)
    expect(existsSync(path.join(project, "ok.txt"))).toBe(true)
  })

  test("sandbox - a linked git worktree (.git is a file) still commits; the main repo's hooks stay read-only", async () => {
    const main = tempDir("wright-sbx-main-")
    gitRepo(main)
    const linked = path.join(tempDir("wright-sbx-linked-"), "wt")
    execFileSync("git", ["-C", main, "worktree", "add", "-q", "-b", "side", linked])
    const box = await resolveSandbox({ config: {}, worktree: linked, directory: linked, env, home: main, restrictReads: false })
    if (box.state === "on") disposers.push(box.dispose)
    const r = await sh(`echo b > b.txt && git add b.txt && git -c user.email=t@t -c user.name=t commit -q -m linked && echo committed; echo evil > ${main}/.git/hooks/pre-commit`, linked, box)
    expect(r.out).toContain("committed")
    expect(execFileSync("git", ["-C", main, "log", "-1", "--format=%s", "side"], { encoding: "utf8" }).trim()).toBe("linked")
    expect(existsSync(path.join(main, ".git/hooks/pre-commit"))).toBe(false)
  })

  test("sandbox - read-only mode: nothing but $TMPDIR is writable", async () => {
    const { project, box } = await setup({ config: { mode: "read-only" } })
    const r = await sh(`echo y > inside.txt; echo t > "$TMPDIR/t" && echo tmp-ok`, project, box)
    expect(existsSync(path.join(project, "inside.txt"))).toBe(false)
    expect(r.out).toContain("tmp-ok")
  })

  test("sandbox - sandbox.writable adds a path; a configured path that does not exist is skipped", async () => {
    const extra = tempDir("wright-sbx-extra-")
    const { project, box } = await setup({ config: { writable: [extra, "/nonexistent/wright-sbx"] } })
    await sh(`echo w > ${extra}/w.txt`, project, box)
    expect(readFileSync(path.join(extra, "w.txt"), "utf8")).toBe("w\n")
  })
})

describe("sandbox - reads", () => {
  test("sandbox - with external_directory deny, $HOME is not mounted; the project and system dirs are", async () => {
    const { home, project, box } = await setup({ restrictReads: true })
    writeFileSync(path.join(project, "mine.txt"), "project file\n")
    symlinkSync(path.join(home, "secret.txt"), path.join(project, "link-to-secret"))
    const r = await sh(`cat ${home}/secret.txt; cat link-to-secret; cat mine.txt; ls /usr/bin/env; git status --short | head -1`, project, box)
    expect(r.out).not.toContain("the user's secret")
    expect(r.out).toContain("project file")
    expect(r.out).toContain("/usr/bin/env")
    expect(box.state === "on" && box.explain(r.out)).toMatchObject({ kind: "read", path: path.join(home, "secret.txt") })
  })

  test("sandbox - without external_directory deny, the whole filesystem is readable (read-only)", async () => {
    const { home, project, box } = await setup()
    const r = await sh(`cat ${home}/secret.txt`, project, box)
    expect(r.out).toContain("the user's secret")
  })
})

describe("sandbox - network", () => {
  async function listener(): Promise<{ port: number; accepted: () => number; close: () => void }> {
    let count = 0
    const server = net.createServer((s) => {
      count++
      // The shell closes its end at once: a reset while "hello" goes out is expected, not a failure.
      s.on("error", () => {})
      s.end("hello\n")
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    return { port: (server.address() as net.AddressInfo).port, accepted: () => count, close: () => server.close() }
  }

  test("sandbox - network: false: a connection to a listener on the host's 127.0.0.1 fails; nothing arrives", async () => {
    const l = await listener()
    try {
      const { project, box } = await setup({ config: { network: false } })
      const r = await sh(`exec 3<>/dev/tcp/127.0.0.1/${l.port} && echo connected`, project, box)
      expect(r.out).not.toContain("connected")
      expect(r.out).toMatch(/Connection refused/)
      expect(l.accepted()).toBe(0)
      expect(box.state === "on" && box.explain(r.out)).toMatchObject({ kind: "network" })
      // With the network on (the default), the same connection arrives.
      const open = await setup()
      const r2 = await sh(`exec 3<>/dev/tcp/127.0.0.1/${l.port} && echo connected`, open.project, open.box)
      expect(r2.out).toContain("connected")
      expect(l.accepted()).toBe(1)
    } finally {
      l.close()
    }
  })
})

describe("sandbox - processes", () => {
  test("sandbox - background jobs, setsid and nohup die when the command ends", async () => {
    const { project, box } = await setup()
    const marker = `${process.pid}${Date.now() % 100000}`
    const r = await sh(`sleep 4${marker}1 & setsid sleep 4${marker}2 & nohup sleep 4${marker}3 >/dev/null 2>&1 & disown -a; echo started`, project, box)
    expect(r.out).toContain("started")
    // The sandbox's processes die with it, which a loaded machine may take more than a moment to show.
    await vi.waitFor(() => expect(processesNamed(`sleep 4${marker}`)).toEqual([]), { timeout: 10_000, interval: 50 })
  })

  test("sandbox - a timeout kills the whole sandbox, setsid children included", async () => {
    const { project, box } = await setup()
    const marker = `${process.pid}${Date.now() % 100000}`
    const child = await exec(["bash", "-c", `setsid sleep 5${marker}1 & sleep 5${marker}2`], { cwd: project, sandbox: box, timeout: 500 })
    child.stdout.resume()
    child.stderr.resume()
    const done = await child.done
    expect(done.timedOut).toBe(true)
    // The sandbox's processes die with it, which a loaded machine may take more than a moment to show.
    await vi.waitFor(() => expect(processesNamed(`sleep 5${marker}`)).toEqual([]), { timeout: 10_000, interval: 50 })
  })

  test("sandbox - unsandboxed, setsid escapes the group kill: the sandbox is what closes it", async () => {
    const dir = tempDir()
    const marker = `${process.pid}${Date.now() % 100000}`
    const r = await sh(`setsid sleep 6${marker} >/dev/null 2>&1 & echo started`, dir, "off")
    expect(r.out).toContain("started")
    await new Promise((res) => setTimeout(res, 200))
    const left = processesNamed(`sleep 6${marker}`)
    expect(left.length).toBe(1)
    for (const pid of left) process.kill(pid, "SIGKILL")
  })
})

describe("sandbox - off and unavailable", () => {
  test("sandbox - mode off: no sandbox at all", async () => {
    const { box } = await setup({ config: { mode: "off" } })
    expect(box).toEqual({ state: "off" })
  })

  test("sandbox - no bwrap on PATH: unavailable with one notice saying what is off and how to install it", async () => {
    const bin = tempDir("wright-sbx-bin-")
    symlinkSync("/bin/bash", path.join(bin, "bash"))
    const project = tempDir()
    const box = await resolveSandbox({ config: {}, worktree: project, directory: project, env: { PATH: bin }, home: project, restrictReads: false })
    expect(box.state).toBe("unavailable")
    if (box.state !== "unavailable") return
    expect(box.notice).toMatch(/The OS sandbox is off: bwrap \(bubblewrap\) is not on PATH/)
    expect(box.notice).toMatch(/apt install bubblewrap/)
    expect(box.notice).toMatch(/only the permission rules protect/)
    // Not required: the command runs unconfined.
    const r = await sh(`echo ran > ran.txt`, project, box)
    expect(r.code).toBe(0)
    expect(existsSync(path.join(project, "ran.txt"))).toBe(true)
  })

  test("sandbox - a bwrap that fails its probe (user namespaces blocked): unavailable, its own words in the notice", async () => {
    const bin = tempDir("wright-sbx-bin-")
    writeFileSync(path.join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    chmodSync(path.join(bin, "bwrap"), 0o755)
    const project = tempDir()
    const box = await resolveSandbox({ config: { required: true }, worktree: project, directory: project, env: { PATH: `${bin}:${process.env.PATH}` }, home: project, restrictReads: false })
    expect(box.state).toBe("unavailable")
    if (box.state !== "unavailable") return
    expect(box.notice).toContain("setting up uid map: Permission denied")
    expect(box.notice).toMatch(/user namespaces/)
    expect(box.notice).toMatch(/sandbox.required is true/)
    // Required: nothing runs.
    await expect(exec(["bash", "-c", "echo ran > ran.txt"], { cwd: project, sandbox: box })).rejects.toThrow(/Nothing was run/)
    expect(existsSync(path.join(project, "ran.txt"))).toBe(false)
  })

  test("sandbox - macOS and Windows: unavailable with a notice (no bubblewrap there)", async () => {
    const project = tempDir()
    const box = await resolveSandbox({ config: {}, worktree: project, directory: project, env, home: project, restrictReads: false, platform: "darwin" })
    expect(box.state === "unavailable" && box.notice).toMatch(/needs Linux .* this is darwin/)
  })
})

describe("sandbox - what counts as the sandbox's doing", () => {
  test("sandbox explain - EROFS, a hidden path, no network; not a plain missing file, Permission denied or a network error with the network on", async () => {
    const { home, project, box } = await setup({ restrictReads: true, config: { network: false } })
    if (box.state !== "on") throw new Error("sandbox expected on")
    expect(box.explain(`bash: line 1: ${home}/x: Read-only file system`)).toMatchObject({ kind: "write", path: `${home}/x` })
    expect(box.explain(`cat: ${home}/secret.txt: No such file or directory`)).toMatchObject({ kind: "read" })
    // Creating a file in a directory that is not mounted: its parent exists here.
    expect(box.explain(`bash: ${home}/new-dir-file: No such file or directory`)).toMatchObject({ kind: "read" })
    expect(box.explain("curl: (6) Could not resolve host: example.com")).toMatchObject({ kind: "network" })
    expect(box.explain(`cat: ${project}/missing.txt: No such file or directory`)).toBeUndefined()
    expect(box.explain("cat: /tmp/never-there: No such file or directory")).toBeUndefined()
    expect(box.explain("cat: /etc/shadow: Permission denied")).toBeUndefined()
    const open = await setup()
    if (open.box.state !== "on") throw new Error("sandbox expected on")
    expect(open.box.explain("curl: (6) Could not resolve host: example.com")).toBeUndefined()
    expect(open.box.explain(`cat: ${open.home}/secret.txt: No such file or directory`)).toBeUndefined()
  })
})

describe("sandbox - read visibility from the permission config", () => {
  test("sandbox reads - external_directory deny (string, object or via *) hides the filesystem; later allows stay readable", () => {
    expect(readRestriction([{ external_directory: "deny" }], "/home/u")).toEqual({ restrict: true, allowed: [] })
    expect(readRestriction([{ "*": "deny", bash: "allow" }], "/home/u")).toEqual({ restrict: true, allowed: [] })
    expect(readRestriction([{ external_directory: { "*": "deny", "~/src/*": "allow", "/data/**": "allow" } }], "/home/u")).toEqual({ restrict: true, allowed: ["/home/u/src", "/data"] })
    // The last word wins: a later layer's ask lifts the restriction.
    expect(readRestriction([{ external_directory: "deny" }, { external_directory: "ask" }], "/home/u").restrict).toBe(false)
    expect(readRestriction([undefined, { bash: "deny" }], "/home/u").restrict).toBe(false)
  })
})

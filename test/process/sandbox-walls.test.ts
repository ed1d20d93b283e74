// The sandbox's walls around what runs later and what is secret, with the real bubblewrap: a
// command cannot plant anything git, wright or a login shell will run afterwards (whether the
// file exists yet or not), cannot read wright's credential files, cannot reach a unix socket
// outside, and is known to wright's listeners as sandboxed. These tests run as root: bwrap
// drops every capability, so root inside cannot remount or unmount its way past a read-only
// bind (EROFS for any uid), and the files removed after a command are removed by wright
// outside, whatever the command's uid.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import net from "node:net"
import path from "node:path"
import { afterEach, describe, expect, test, vi } from "vitest"
import { createExec, resolveSandbox, sandboxedPeer, type Sandbox } from "../../src/process"
import { tempDir } from "../lib/tool-context"

const disposers: (() => void)[] = []
afterEach(() => {
  for (const d of disposers.splice(0)) d()
})

function gitRepo(dir: string) {
  execFileSync("git", ["init", "-q", dir])
  execFileSync("git", ["-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init"])
}

interface Setup {
  home: string
  project: string
  box: Sandbox
  env: NodeJS.ProcessEnv
}

/** A home (XDG dirs at their defaults inside it) and a git project; `project: "home"` opens the home itself. */
async function setup(opts: { project?: "home"; restrictReads?: boolean; env?: NodeJS.ProcessEnv; extraReadable?: string[]; before?: (project: string) => void } = {}): Promise<Setup> {
  const home = tempDir("wright-walls-home-")
  const project = opts.project === "home" ? home : path.join(home, "project")
  if (project !== home) mkdirSync(project)
  gitRepo(project)
  opts.before?.(project)
  const env = { PATH: process.env.PATH, HOME: home, TMPDIR: process.env.TMPDIR, ...opts.env }
  const box = await resolveSandbox({ config: {}, worktree: project, directory: project, env, home, restrictReads: opts.restrictReads ?? false, extraReadable: opts.extraReadable })
  if (box.state !== "on") throw new Error("the sandbox is not on here")
  disposers.push(box.dispose)
  return { home, project, box, env }
}

async function sh(s: Setup, script: string): Promise<{ code: number | null; out: string }> {
  const exec = createExec({ env: s.env, killGrace: 500 })
  const child = await exec(["bash", "-c", script], { cwd: s.project, sandbox: s.box })
  let out = ""
  child.stdout.on("data", (b: Buffer) => (out += b))
  child.stderr.on("data", (b: Buffer) => (out += b))
  const done = await child.done
  return { code: done.code, out }
}

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" })

describe("walls - what runs later is not writable now", () => {
  test("walls - .git: commondir, config.worktree, info, hooks, a submodule's config cannot be planted; git commit still works", async () => {
    const s = await setup({
      before: (project) => {
        // A submodule's git dir, as `git submodule add` leaves it.
        mkdirSync(path.join(project, ".git/modules/sub"), { recursive: true })
        writeFileSync(path.join(project, ".git/modules/sub/config"), "[core]\n\tbare = false\n")
        rmSync(path.join(project, ".git/info"), { recursive: true, force: true })
      },
    })
    const evil = path.join(s.project, "evil.cfg")
    const r = await sh(
      s,
      [
        // git works inside (before the plants: a planted commondir would break it in here too).
        `echo a > a.txt && git add a.txt && git -c user.email=t@t -c user.name=t commit -q -m inside && echo committed`,
        `printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > evil.cfg`,
        `echo "$PWD" > .git/commondir`,
        `echo '[core]' > .git/config.worktree`,
        `mkdir -p .git/info && echo 'x filter=evil' > .git/info/attributes`,
        `echo 'exit 0' > .git/hooks/pre-commit`,
        `echo '[core] fsmonitor = x' >> .git/modules/sub/config`,
      ].join("; "),
    )
    expect(r.out).toContain("committed")
    expect(git(s.project, "log", "-1", "--format=%s").trim()).toBe("inside")
    expect(existsSync(evil)).toBe(true)
    expect(existsSync(path.join(s.project, ".git/commondir"))).toBe(false)
    expect(existsSync(path.join(s.project, ".git/config.worktree"))).toBe(false)
    expect(existsSync(path.join(s.project, ".git/info"))).toBe(false)
    expect(existsSync(path.join(s.project, ".git/hooks/pre-commit"))).toBe(false)
    expect(readFileSync(path.join(s.project, ".git/modules/sub/config"), "utf8")).not.toContain("fsmonitor")
    // The command is told what was taken away after it ended.
    expect(r.out).toMatch(/wright removed .*\.git\/commondir/)
    // git outside still works: no empty commondir or mount point left behind.
    expect(git(s.project, "status", "--short")).toBe("?? evil.cfg\n")
  })

  test("walls - .git, .wright and .opencode cannot be renamed away and replaced", async () => {
    const s = await setup()
    mkdirSync(path.join(s.project, ".wright"))
    const r = await sh(s, `mv .git .git-old; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; mv .wright .w-old; mkdir -p .wright/plugin && echo evil > .wright/plugin/x.js; echo done`)
    expect(r.out).toContain("done")
    expect(existsSync(path.join(s.project, ".git-old"))).toBe(false)
    expect(existsSync(path.join(s.project, ".w-old"))).toBe(false)
    expect(existsSync(path.join(s.project, ".git/hooks/pre-commit"))).toBe(false)
    expect(existsSync(path.join(s.project, ".wright/plugin"))).toBe(false)
  })

  test("walls - a .wright the repository ships as a link cannot be swapped for a folder of plugins: it is put back", async () => {
    const s = await setup({
      before: (project) => {
        mkdirSync(path.join(project, "shared-config"))
        symlinkSync("shared-config", path.join(project, ".wright"))
      },
    })
    const r = await sh(s, `echo x > .wright/plugin.js; rm .wright && mkdir -p .wright/plugin && echo evil > .wright/plugin/x.js; echo tried`)
    expect(r.out).toContain("tried")
    expect(readlinkSync(path.join(s.project, ".wright"))).toBe("shared-config")
    expect(existsSync(path.join(s.project, "shared-config/plugin"))).toBe(false)
    expect(existsSync(path.join(s.project, "shared-config/plugin.js"))).toBe(false)
    expect(r.out).toMatch(/wright removed .*\.wright/)
  })

  test("walls - .wright and .opencode that do not exist yet cannot be created, and no empty folder is left behind", async () => {
    const s = await setup()
    const r = await sh(s, `mkdir -p .wright/plugin && echo evil > .wright/plugin/x.js; mkdir .opencode; echo ok > ok.txt`)
    expect(existsSync(path.join(s.project, ".wright"))).toBe(false)
    expect(existsSync(path.join(s.project, ".opencode"))).toBe(false)
    expect(readFileSync(path.join(s.project, "ok.txt"), "utf8")).toBe("ok\n")
    expect(r.out).toMatch(/Read-only file system/)
    expect(s.box.state === "on" && s.box.explain(r.out)).toMatchObject({ kind: "write" })
  })

  test("walls - a missing folder stays closed to a command that outlives the one that made its mount point", async () => {
    const s = await setup()
    // The second starts once the first runs, and the first ends once the second runs (a fixed
    // 0.5 s against a 0.2 s head start raced a slow sandbox start on a loaded machine): the second
    // is running when the first ends and its mount point would go.
    const first = sh(s, `touch first-started; for i in $(seq 600); do [ -e second-started ] && exit 0; sleep 0.05; done`)
    await vi.waitFor(() => expect(existsSync(path.join(s.project, "first-started"))).toBe(true), { timeout: 30_000 })
    const second = sh(s, `touch second-started; sleep 2; mkdir -p .wright/plugin && echo evil > .wright/plugin/x.js; echo tried`)
    await first
    expect(existsSync(path.join(s.project, ".wright"))).toBe(true)
    const r = await second
    expect(r.out).toContain("tried")
    expect(existsSync(path.join(s.project, ".wright"))).toBe(false)
  })

  test("walls - wright's config, data and plugin folders stay read-only inside a writable root, existing or not", async () => {
    const s = await setup({ project: "home" })
    mkdirSync(path.join(s.home, ".local/share/wright"), { recursive: true })
    const r = await sh(
      s,
      `mkdir -p .config/wright/plugin && echo evil > .config/wright/plugin/x.js; echo '{}' > .local/share/wright/trust.json; mkdir -p .config/opencode/plugin && echo evil > .config/opencode/plugin/x.js; echo ok > notes.txt`,
    )
    expect(existsSync(path.join(s.home, ".config/wright/plugin"))).toBe(false)
    expect(existsSync(path.join(s.home, ".config/opencode"))).toBe(false)
    expect(existsSync(path.join(s.home, ".local/share/wright/trust.json"))).toBe(false)
    expect(readFileSync(path.join(s.home, "notes.txt"), "utf8")).toBe("ok\n")
    expect(r.out).toMatch(/Read-only file system/)
  })

  test("walls - XDG_CONFIG_HOME and XDG_DATA_HOME are honoured: wright's folders there are read-only", async () => {
    const s = await setup({ project: "home", env: {} })
    const xdg = { XDG_CONFIG_HOME: path.join(s.home, "cfg"), XDG_DATA_HOME: path.join(s.home, "dat") }
    mkdirSync(path.join(xdg.XDG_CONFIG_HOME, "wright"), { recursive: true })
    const env = { ...s.env, ...xdg }
    const box = await resolveSandbox({ config: {}, worktree: s.home, directory: s.home, env, home: s.home, restrictReads: false })
    if (box.state === "on") disposers.push(box.dispose)
    await sh({ ...s, env, box }, `mkdir -p cfg/wright/plugin && echo x > cfg/wright/plugin/x.js; mkdir -p dat/wright && echo '{}' > dat/wright/auth.json`)
    expect(existsSync(path.join(xdg.XDG_CONFIG_HOME, "wright/plugin"))).toBe(false)
    expect(existsSync(path.join(xdg.XDG_DATA_HOME, "wright"))).toBe(false)
  })

  test("walls - started in $HOME: dotfiles and dot-folders are read-only, a new dotfile is removed, other files are writable", async () => {
    const s = await setup({ project: "home" })
    writeFileSync(path.join(s.home, ".bashrc"), "# the user's\n")
    mkdirSync(path.join(s.home, ".ssh"))
    const r = await sh(s, `echo evil >> .bashrc; echo key > .ssh/authorized_keys; echo evil > .bash_profile; mkdir -p .config/autostart; echo fine > fine.txt; mkdir src && echo code > src/a.ts`)
    expect(readFileSync(path.join(s.home, ".bashrc"), "utf8")).toBe("# the user's\n")
    expect(existsSync(path.join(s.home, ".ssh/authorized_keys"))).toBe(false)
    expect(existsSync(path.join(s.home, ".bash_profile"))).toBe(false)
    expect(existsSync(path.join(s.home, ".config"))).toBe(false)
    expect(readFileSync(path.join(s.home, "fine.txt"), "utf8")).toBe("fine\n")
    expect(readFileSync(path.join(s.home, "src/a.ts"), "utf8")).toBe("code\n")
    expect(r.out).toMatch(/wright removed .*\.bash_profile/)
  })
})

describe("walls - secrets stay out", () => {
  test("walls - wright's and OpenCode's credential files read as empty; the tool-output folder stays readable", async () => {
    const home = tempDir("wright-walls-cred-")
    const data = path.join(home, ".local/share")
    mkdirSync(path.join(data, "wright/tool-output"), { recursive: true })
    mkdirSync(path.join(data, "opencode"), { recursive: true })
    for (const f of ["wright/auth.json", "wright/mcp-auth.json", "wright/trust.json", "opencode/auth.json", "opencode/mcp-auth.json"]) writeFileSync(path.join(data, f), `SECRET-${f}\n`)
    writeFileSync(path.join(data, "wright/tool-output/tool_1"), "spilled output\n")
    const project = path.join(home, "project")
    mkdirSync(project)
    gitRepo(project)
    const env = { PATH: process.env.PATH, HOME: home }
    for (const restrictReads of [false, true]) {
      const box = await resolveSandbox({ config: {}, worktree: project, directory: project, env, home, restrictReads, extraReadable: [path.join(data, "wright/tool-output")] })
      if (box.state !== "on") throw new Error("no sandbox")
      disposers.push(box.dispose)
      const r = await sh({ home, project, box, env }, `cat ${data}/wright/*.json ${data}/opencode/*.json; cat ${data}/wright/tool-output/tool_1`)
      expect(r.out).not.toContain("SECRET")
      expect(r.out).toContain("spilled output")
    }
    // Outside, the files are as they were.
    expect(readFileSync(path.join(data, "wright/auth.json"), "utf8")).toContain("SECRET")
  })

  test("walls - unix sockets in /tmp, /run, $XDG_RUNTIME_DIR and at $SSH_AUTH_SOCK are unreachable; the project under /tmp still works", async () => {
    const sockDir = tempDir("wright-walls-sock-")
    const runDir = `/run/wright-walls-${process.pid}`
    const xdgRuntime = tempDir("wright-walls-xdg-")
    mkdirSync(runDir, { recursive: true })
    const agentDir = tempDir("wright-walls-agent-")
    const paths = [path.join(sockDir, "s"), path.join(runDir, "s"), path.join(xdgRuntime, "bus"), path.join(agentDir, "agent.1")]
    let accepted = 0
    const servers = await Promise.all(
      paths.map(
        (p) =>
          new Promise<net.Server>((resolve) => {
            const srv = net.createServer((c) => {
              accepted++
              c.on("error", () => {})
              c.end("hello\n")
            })
            srv.listen(p, () => resolve(srv))
          }),
      ),
    )
    try {
      const s = await setup({ env: { XDG_RUNTIME_DIR: xdgRuntime, SSH_AUTH_SOCK: paths[3] } })
      const connect = (p: string) =>
        `node -e 'const c=require("net").connect(process.argv[1]);c.on("connect",()=>{console.log("CONNECTED "+process.argv[1]);c.destroy()});c.on("error",e=>console.log("failed "+e.code))' ${p}`
      const r = await sh(s, [...paths.map(connect), "echo ok > in-project.txt && cat in-project.txt"].join("; "))
      expect(r.out).not.toContain("CONNECTED")
      expect(accepted).toBe(0)
      expect(r.out).toContain("ok")
      // Outside the sandbox the same connections arrive: the test can fail.
      const outside = await sh({ ...s, box: { state: "off" } }, paths.map(connect).join("; "))
      expect(outside.out.match(/CONNECTED/g)).toHaveLength(4)
    } finally {
      for (const srv of servers) srv.close()
      rmSync(runDir, { recursive: true, force: true })
    }
  })
})

test("walls explain - a file or socket hidden in /tmp or /run is the sandbox's doing; a file missing outside too is not", async () => {
  const outside = tempDir("wright-walls-hidden-")
  writeFileSync(path.join(outside, "notes.txt"), "x\n")
  const s = await setup()
  const r = await sh(s, `cat ${outside}/notes.txt`)
  expect(r.code).not.toBe(0)
  if (s.box.state !== "on") throw new Error("no sandbox")
  expect(s.box.explain(r.out)).toMatchObject({ kind: "read", path: path.join(outside, "notes.txt") })
  expect(s.box.explain(r.out)?.note).toMatch(/hides .*unix sockets/)
  expect(s.box.explain(`cat: ${outside}/never.txt: No such file or directory`)).toBeUndefined()
  mkdirSync("/run/wright-walls-explain", { recursive: true })
  try {
    writeFileSync("/run/wright-walls-explain/docker.sock", "")
    expect(s.box.explain("Cannot connect to the Docker daemon at unix:///run/wright-walls-explain/docker.sock. Is the docker daemon running?")).toMatchObject({ kind: "read" })
  } finally {
    rmSync("/run/wright-walls-explain", { recursive: true, force: true })
  }
})

describe("walls - wright's listeners know a sandboxed peer", () => {
  test("walls - a TCP connection from a sandboxed command is known as sandboxed; one from outside is not", async () => {
    const seen: boolean[] = []
    const server = net.createServer((c) => {
      seen.push(sandboxedPeer(c))
      c.end("hi\n")
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const port = (server.address() as net.AddressInfo).port
    try {
      const s = await setup()
      await sh(s, `exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`)
      await sh({ ...s, box: { state: "off" } }, `exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`)
      expect(seen).toEqual([true, false])
    } finally {
      server.close()
    }
  })
})

test("walls - no sweep note and nothing removed when a command creates nothing protected", async () => {
  const s = await setup()
  const r = await sh(s, `echo hi`)
  expect(r.out).toBe("hi\n")
  expect(readdirSync(s.project).sort()).toEqual([".git"])
})

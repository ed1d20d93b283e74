import { existsSync, readFileSync } from "node:fs"
import { afterEach, expect, test } from "vitest"
import { createExec, type Child } from "../../src/process"
import { tempDir } from "../lib/tool-context"

const env = { PATH: process.env.PATH, HOME: process.env.HOME }

/** Alive and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

/** Polls `check` for up to 20 s by the clock (a count of short sleeps gave a loaded machine 5 s). */
async function until(check: () => boolean, what: string) {
  for (const end = Date.now() + 20_000; !check() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25))
  if (!check()) throw new Error(`timed out waiting until ${what}`)
}

function output(child: Child): Promise<string> {
  let text = ""
  child.stdout.on("data", (b: Buffer) => (text += b.toString()))
  child.stderr.resume()
  return child.done.then(() => text)
}

/** The first line the child prints: here, the pid of its background grandchild. */
function firstLine(child: Child): Promise<string> {
  return new Promise((resolve) => {
    let text = ""
    child.stdout.on("data", (b: Buffer) => {
      text += b.toString()
      if (text.includes("\n")) resolve(text.split("\n")[0]!)
    })
    child.stderr.resume()
  })
}

const leftovers: number[] = []
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone, as it should be
    }
  }
})

// A shell that starts a grandchild `sleep`, prints its pid and waits for it.
const FAMILY = ["sh", "-c", "sleep 60 & echo $!; wait"]

test("exec - a timeout kills the whole process group: the child and its grandchild sleep", async () => {
  const exec = createExec({ env })
  // Long enough for the shell to start its grandchild and print its pid first, on a loaded machine too.
  const child = await exec(FAMILY, { cwd: tempDir(), timeout: 1500 })
  const grandchild = Number(await firstLine(child))
  leftovers.push(child.pid, grandchild)
  expect(alive(grandchild)).toBe(true)
  const exit = await child.done
  expect(exit).toMatchObject({ timedOut: true, aborted: false, signal: "SIGTERM" })
  await until(() => !alive(child.pid) && !alive(grandchild), "both processes are gone")
})

test("exec - an abort kills the whole process group", async () => {
  const exec = createExec({ env })
  const controller = new AbortController()
  const child = await exec(FAMILY, { cwd: tempDir(), abort: controller.signal })
  const grandchild = Number(await firstLine(child))
  leftovers.push(child.pid, grandchild)
  controller.abort()
  expect(await child.done).toMatchObject({ timedOut: false, aborted: true })
  await until(() => !alive(child.pid) && !alive(grandchild), "both processes are gone")
})

test("exec - a grandchild that ignores TERM is killed after the grace", async () => {
  const exec = createExec({ env, killGrace: 200 })
  const child = await exec(["sh", "-c", "sh -c 'trap \"\" TERM; sleep 60' & echo $!; wait"], { cwd: tempDir(), timeout: 1000 })
  const stubborn = Number(await firstLine(child))
  leftovers.push(child.pid, stubborn)
  expect(alive(stubborn)).toBe(true)
  await child.done
  await until(() => !alive(stubborn), "the TERM-ignoring grandchild is gone")
})

test("exec - the environment is the App's, with the call's additions: a variable only in process.env is not seen", async () => {
  process.env.WRIGHT_ONLY_IN_PROCESS_ENV = "leaked"
  try {
    const exec = createExec({ env: { ...env, APP_VALUE: "from the app", DROPPED: "x" } })
    const child = await exec(["sh", "-c", 'echo "[$WRIGHT_ONLY_IN_PROCESS_ENV] [$APP_VALUE] [$CALL_VALUE] [${DROPPED-unset}]"'], {
      cwd: tempDir(),
      env: { CALL_VALUE: "from the call", DROPPED: undefined },
    })
    expect(await output(child)).toBe("[] [from the app] [from the call] [unset]\n")
  } finally {
    delete process.env.WRIGHT_ONLY_IN_PROCESS_ENV
  }
})

test("exec - runs in cwd; reports the exit code; a missing program rejects with ENOENT", async () => {
  const exec = createExec({ env })
  const dir = tempDir()
  const child = await exec(["sh", "-c", "pwd; exit 3"], { cwd: dir })
  expect(await output(child)).toBe(`${dir}\n`)
  expect(await child.done).toEqual({ code: 3, signal: null, timedOut: false, aborted: false })
  await expect(exec(["wright-no-such-program"], { cwd: dir })).rejects.toMatchObject({ code: "ENOENT" })
})

test("exec - stdin: pipe gives the child a writable stdin", async () => {
  const exec = createExec({ env })
  const child = await exec(["cat"], { cwd: tempDir(), stdin: "pipe" })
  const text = output(child)
  child.stdin!.end("through stdin\n")
  expect(await text).toBe("through stdin\n")
})

test("exec - a required sandbox that is unavailable refuses the command; nothing runs", async () => {
  const exec = createExec({ env })
  const dir = tempDir()
  const missing = { state: "unavailable", reason: "bwrap (bubblewrap) is not on PATH", required: true, notice: "The OS sandbox is off: bwrap is not on PATH." } as const
  await expect(exec(["touch", "ran"], { cwd: dir, sandbox: missing })).rejects.toThrow(/Nothing was run\. The OS sandbox is off/)
  expect(existsSync(`${dir}/ran`)).toBe(false)
  const notRequired = await exec(["touch", "ran"], { cwd: dir, sandbox: { ...missing, required: false } })
  expect((await notRequired.done).code).toBe(0)
  expect(existsSync(`${dir}/ran`)).toBe(true)
})

test("exec - kill() after the exit still ends what is left of the group (a background job)", async () => {
  const exec = createExec({ env })
  const child = await exec(["sh", "-c", "sleep 60 & echo $!"], { cwd: tempDir() })
  const background = Number(await firstLine(child))
  leftovers.push(background)
  expect((await child.done).code).toBe(0)
  expect(alive(background)).toBe(true)
  child.kill()
  await until(() => !alive(background), "the background job is gone")
})

test("exec - scrub: keys, passwords, tokens and cloud credentials are dropped; the catalogue's names and sandbox.env's are honoured", async () => {
  const exec = createExec({
    env: {
      ...env,
      LANG: "C.UTF-8",
      OPENAI_API_KEY: "k1",
      WRIGHT_SERVER_PASSWORD: "p1",
      WRIGHT_SERVER_PASSWORD_FILE: "/p",
      GH_TOKEN: "t1",
      NODE_AUTH_TOKEN: "t2",
      MY_CLIENT_SECRET: "s1",
      AWS_PROFILE: "a1",
      AZURE_CLIENT_ID: "z1",
      GOOGLE_APPLICATION_CREDENTIALS: "/g",
      CATALOGUE_ONLY: "c1",
      GITHUB_TOKEN: "kept",
      TOKENIZERS_PARALLELISM: "true",
    },
    secretNames: () => ["CATALOGUE_ONLY"],
    passEnv: () => ["GITHUB_TOKEN"],
  })
  const run = async (scrub: boolean) => {
    const child = await exec(["env"], { cwd: tempDir(), scrub, env: { CALL_SECRET_TOKEN: "given by the caller" } })
    return (await output(child)).split("\n").filter(Boolean).sort()
  }
  expect(await run(true)).toEqual(
    ["CALL_SECRET_TOKEN=given by the caller", "GITHUB_TOKEN=kept", `HOME=${env.HOME}`, "LANG=C.UTF-8", `PATH=${env.PATH}`, "TOKENIZERS_PARALLELISM=true"].sort(),
  )
  expect(await run(false)).toContain("OPENAI_API_KEY=k1")
})

// Session leases between real processes over one database file: each child opens the file
// with its own connection (as a second wright does), so atomicity and liveness are the real
// thing, not one connection talking to itself.
import { spawn, type ChildProcess } from "node:child_process"
import path from "node:path"
import { afterEach, expect, test } from "vitest"
import { createLeases, openDatabase } from "../../src/storage"
import { tempDir } from "../lib/tool-context"

const ROOT = path.resolve(import.meta.dirname, "../..")
const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL")
})

/**
 * A child process that opens `file`, says "ready", tries the lease when it reads "go" on
 * stdin, prints the outcome, then stays alive renewing it.
 */
function contender(file: string, sessionID: string) {
  const code = `
    import { createLeases, openDatabase } from ${JSON.stringify(path.join(ROOT, "src/storage/index.ts"))}
    const leases = createLeases(openDatabase(${JSON.stringify(file)}))
    process.stdout.write("ready\\n")
    process.stdin.once("data", () => {
      const got = leases.acquire(${JSON.stringify(sessionID)})
      process.stdout.write(JSON.stringify({ ok: got.ok, pid: process.pid }) + "\\n")
      setInterval(() => leases.renew([${JSON.stringify(sessionID)}]), 200)
    })
  `
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] })
  children.push(child)
  let out = ""
  const lines: ((line: string) => void)[] = []
  child.stdout!.on("data", (d) => {
    out += d
    let i
    while ((i = out.indexOf("\n")) >= 0) {
      const line = out.slice(0, i)
      out = out.slice(i + 1)
      lines.shift()?.(line)
    }
  })
  const next = () => new Promise<string>((resolve, reject) => {
    lines.push(resolve)
    child.once("exit", (code) => reject(new Error(`contender exited (${code}) before answering`)))
  })
  const ready = next()
  return {
    child,
    ready,
    async go(): Promise<{ ok: boolean; pid: number }> {
      const answer = next()
      child.stdin!.write("go\n")
      return JSON.parse(await answer)
    },
  }
}

test("lease - four processes racing for one session: exactly one wins, and the others see it held", async () => {
  const file = path.join(tempDir("wright-lease-"), "wright.db")
  openDatabase(file).close()
  const racers = Array.from({ length: 4 }, () => contender(file, "ses_race"))
  await Promise.all(racers.map((r) => r.ready))
  const outcomes = await Promise.all(racers.map((r) => r.go()))
  const winners = outcomes.filter((o) => o.ok)
  expect(winners).toHaveLength(1)
  const here = createLeases(openDatabase(file))
  const got = here.acquire("ses_race")
  expect(got.ok).toBe(false)
  expect(!got.ok && got.lease.pid).toBe(winners[0]!.pid)
}, 60_000)

test("lease - a holder killed with SIGKILL is taken over at once on the same machine; a live one never", async () => {
  const file = path.join(tempDir("wright-lease-"), "wright.db")
  openDatabase(file).close()
  const holder = contender(file, "ses_k")
  await holder.ready
  expect((await holder.go()).ok).toBe(true)
  const here = createLeases(openDatabase(file))
  // Alive and renewing: never taken, however often asked.
  for (let i = 0; i < 5; i++) {
    expect(here.acquire("ses_k").ok).toBe(false)
    await new Promise((r) => setTimeout(r, 100))
  }
  expect(here.heldElsewhere().map((l) => l.sessionID)).toEqual(["ses_k"])
  const exited = new Promise((r) => holder.child.once("exit", r))
  holder.child.kill("SIGKILL")
  await exited
  // Its heartbeat is fresh, but its pid is gone from this machine.
  expect(here.heldElsewhere()).toEqual([])
  const got = here.acquire("ses_k")
  expect(got).toMatchObject({ ok: true, mine: false, replaced: { pid: holder.child.pid } })
  expect(here.get("ses_k")?.holder).toBe(here.holder)
}, 60_000)

test("lease - a lease from another machine is taken over only once its heartbeat is older than the stale time", () => {
  const file = path.join(tempDir("wright-lease-"), "wright.db")
  let clock = 1_000_000
  const now = () => clock
  const remote = createLeases(openDatabase(file), { hostname: "other-host", pid: 1, now })
  const here = createLeases(openDatabase(file), { now, staleMs: 5000 })
  expect(remote.acquire("ses_r").ok).toBe(true)
  clock += 4000
  expect(here.acquire("ses_r").ok).toBe(false)
  // The remote holder renews: the clock starts again.
  expect(remote.renew(["ses_r"])).toEqual([])
  clock += 4000
  expect(here.acquire("ses_r").ok).toBe(false)
  clock += 1500
  expect(here.acquire("ses_r")).toMatchObject({ ok: true, replaced: { hostname: "other-host" } })
  // The stalled remote learns it lost the session on its next renewal.
  expect(remote.renew(["ses_r"])).toEqual(["ses_r"])
  // A release by the old holder does not free the new holder's lease.
  remote.release("ses_r")
  expect(here.get("ses_r")?.holder).toBe(here.holder)
  here.release("ses_r")
  expect(here.get("ses_r")).toBeUndefined()
})

test("lease - taking over a dead holder's lease counts a crash in a row and makes one resume due, taken once", () => {
  const file = path.join(tempDir("wright-lease-"), "wright.db")
  const dead = new Set<number>()
  const opts = { alive: (pid: number) => !dead.has(pid) }
  const a = createLeases(openDatabase(file), { ...opts, pid: 101 })
  const b = createLeases(openDatabase(file), { ...opts, pid: 102 })
  const c = createLeases(openDatabase(file), { ...opts, pid: 103 })
  // A lease given back normally is no crash.
  expect(a.acquire("ses_c").ok).toBe(true)
  a.release("ses_c")
  expect(b.acquire("ses_c").ok).toBe(true)
  expect(b.crashes("ses_c")).toBeUndefined()
  // B dies holding it: C's takeover records the crash; the resume is taken once, by either.
  dead.add(102)
  expect(a.deadHeld().map((l) => l.sessionID)).toEqual(["ses_c"])
  expect(c.acquire("ses_c")).toMatchObject({ ok: true, replaced: { pid: 102 } })
  expect(a.deadHeld()).toEqual([])
  expect(a.crashes("ses_c")).toEqual({ count: 1, pending: true })
  expect(a.resumesDue()).toEqual(["ses_c"])
  expect(c.takeResume("ses_c")).toBe(1)
  expect(a.takeResume("ses_c")).toBeUndefined()
  // C dies too: two in a row.
  dead.add(103)
  expect(a.acquire("ses_c").ok).toBe(true)
  expect(a.crashes("ses_c")).toEqual({ count: 2, pending: true })
  // A turn that finishes normally starts the count again.
  a.clearCrashes("ses_c")
  expect(a.crashes("ses_c")).toBeUndefined()
  expect(a.resumesDue()).toEqual([])
})

// The live registry `wright ps` reads: one App's sessions and their states, from its bus.
import { readdirSync, writeFileSync, mkdirSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { expect, test, vi } from "vitest"
import { createBus } from "../../src/bus"
import { createLiveRegistry, readLive } from "../../src/session"
import { tempDir } from "../lib/tool-context"

/**
 * The registry writes its file 100 ms after a change: wait until the file shows `what` (a fixed
 * 150 ms left a loaded machine 50 ms to fire that timer).
 */
const until = (what: () => void) => vi.waitFor(what, { timeout: 10_000, interval: 20 })

test("live - a session's state follows its run: working, waiting for a permission, failed, idle; dispose removes the file", async () => {
  const data = tempDir("wright-live-")
  const bus = createBus()
  const live = createLiveRegistry({ bus, dataDir: data, directory: "/p" })
  const state = () => readLive(data)[0]?.sessions["ses_1"]
  bus.publish("session.status", { sessionID: "ses_1", status: { type: "busy" } })
  await until(() => expect(state()).toMatchObject({ state: "working" }))
  bus.publish("permission.asked", { id: "per_1", sessionID: "ses_1", permission: "bash", patterns: ["ls"], metadata: {}, always: [] })
  await until(() => expect(state()).toMatchObject({ state: "waiting", waiting: "permission" }))
  bus.publish("permission.replied", { sessionID: "ses_1", requestID: "per_1", reply: "once" })
  bus.publish("session.error", { sessionID: "ses_1", error: { name: "UnknownError", data: { message: "boom" } } })
  bus.publish("session.status", { sessionID: "ses_1", status: { type: "idle" } })
  await until(() => expect(state()).toMatchObject({ state: "failed" }))
  bus.publish("session.status", { sessionID: "ses_1", status: { type: "busy" } })
  bus.publish("session.status", { sessionID: "ses_1", status: { type: "idle" } })
  await until(() => expect(state()).toMatchObject({ state: "idle" }))
  // Another process's run, followed here, is not this process's to report.
  bus.publish("session.status", { sessionID: "ses_2", status: { type: "busy", holder: { pid: 1, hostname: os.hostname() } } })
  bus.publish("session.status", { sessionID: "ses_2", status: { type: "idle" } })
  // A later change of ses_1 is written after ses_2's events, so the file read then has seen them.
  bus.publish("session.status", { sessionID: "ses_1", status: { type: "busy" } })
  await until(() => expect(state()).toMatchObject({ state: "working" }))
  expect(Object.keys(readLive(data)[0]!.sessions)).toEqual(["ses_1"])
  live.dispose()
  expect(readdirSync(path.join(data, "live"))).toEqual([])
})

test("live - a dead process's file is not listed, and is removed", () => {
  const data = tempDir("wright-live-")
  mkdirSync(path.join(data, "live"))
  const file = path.join(data, "live", "999999-x.json")
  writeFileSync(file, JSON.stringify({ pid: 999999, hostname: os.hostname(), directory: "/p", started: 0, sessions: { ses_1: { state: "working", since: 0 } } }))
  expect(readLive(data, () => false)).toEqual([])
  expect(readdirSync(path.join(data, "live"))).toEqual([])
})

import { existsSync, statSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, test } from "vitest"
import { heapHas, heapMeta } from "../lib/heap"
import { startServer, type Harness } from "./harness"

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

test("debug heap - POST /debug/heap writes a V8 heap snapshot of the core into the state directory and answers its path", async () => {
  h = await startServer()
  // A string only the core holds, to find in its heap.
  await h.client.session.create({ title: "heap marker 7f3a9c" })
  const info = await h.client.debug.heap()
  expect(path.dirname(info.path)).toBe(path.join(h.box.home, "state", "wright", "heap"))
  expect(existsSync(info.path)).toBe(true)
  expect(info.pid).toBe(process.pid)
  const { meta, nodeCount } = heapMeta(info.path)
  expect(meta.node_fields).toEqual(expect.arrayContaining(["type", "name", "id", "self_size", "edge_count"]))
  expect(meta.edge_fields).toEqual(expect.arrayContaining(["type", "name_or_index", "to_node"]))
  expect(nodeCount).toBeGreaterThan(1000)
  expect(heapHas(info.path, "heap marker 7f3a9c")).toBe(true)
}, 120_000)

test("debug heap - the snapshot holds the core's secrets, so only its owner may read it: file 0600, folder 0700", async () => {
  // Mode bits, not access checks: the tests run as root, who reads anything, but another
  // user's read is decided by exactly these bits.
  h = await startServer()
  const info = await h.client.debug.heap()
  expect(statSync(info.path).mode & 0o777).toBe(0o600)
  expect(statSync(path.dirname(info.path)).mode & 0o777).toBe(0o700)
}, 120_000)

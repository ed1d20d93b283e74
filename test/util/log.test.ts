import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect, test } from "vitest"
import { createLogger, fileSink, parseLogLevel, streamSink } from "../../src/util"
import { tempDir } from "../lib/tool-context"

const collect = () => {
  const lines: string[] = []
  return { lines, sink: streamSink((l) => void lines.push(l)) }
}

test("log - lines below the level are dropped; a line is level, time, +ms since the last, tags, message, fields", () => {
  const out = collect()
  let t = Date.UTC(2025, 5, 1, 10, 15, 0)
  const log = createLogger({ level: "WARN", sinks: [out.sink], now: () => t })
  log.info("hidden")
  log.debug("hidden too")
  t += 12
  log.child({ service: "mcp" }).warn("failed to connect", { server: "docs", error: new TypeError("fetch failed"), tools: 3 })
  log.error("with spaces", { path: "/a b", list: [1, 2] })
  expect(out.lines).toEqual([
    'WARN  2025-06-01T10:15:00 +12ms service=mcp failed to connect server=docs error="TypeError: fetch failed" tools=3\n',
    'ERROR 2025-06-01T10:15:00 +0ms with spaces path="/a b" list="[1,2]"\n',
  ])
})

test("log - the default level is INFO; a config's level applies only when no flag set one", () => {
  const out = collect()
  const unset = createLogger({ sinks: [out.sink] })
  expect(unset.level).toBe("INFO")
  unset.fallbackLevel("ERROR")
  expect(unset.level).toBe("ERROR")
  const flagged = createLogger({ level: "DEBUG", sinks: [out.sink] })
  flagged.fallbackLevel("ERROR")
  expect(flagged.level).toBe("DEBUG")
  expect(parseLogLevel("warn")).toBe("WARN")
  expect(parseLogLevel("LOUD")).toBeUndefined()
})

test("log - the file sink creates its file on the first line, after the tick, and appends later lines", async () => {
  const dir = path.join(tempDir("wright-log-"), "state", "log")
  const sink = fileSink(dir, { name: "2025-06-01T101500-1.log" })
  const log = createLogger({ sinks: [sink] })
  expect(existsSync(dir)).toBe(false)
  log.info("one")
  log.info("two")
  // Buffered: nothing is written in the caller's tick.
  expect(existsSync(sink.file)).toBe(false)
  await new Promise((r) => setImmediate(r))
  log.warn("three")
  log.flush()
  const lines = readFileSync(sink.file, "utf8").trimEnd().split("\n")
  expect(lines.map((l) => l.split(" ").at(-1))).toEqual(["one", "two", "three"])
})

test("log - a new log file prunes the oldest so that `keep` remain, leaving other files alone", () => {
  const dir = tempDir("wright-log-")
  mkdirSync(dir, { recursive: true })
  const old = ["2025-01-01T000000-1.log", "2025-01-02T000000-2.log", "2025-01-03T000000-3.log"]
  for (const name of [...old, "notes.txt"]) writeFileSync(path.join(dir, name), "x\n")
  const sink = fileSink(dir, { name: "2025-06-01T000000-9.log", keep: 2 })
  sink.write("line\n")
  sink.flush!()
  expect(readdirSync(dir).sort()).toEqual(["2025-01-03T000000-3.log", "2025-06-01T000000-9.log", "notes.txt"])
})

test("log - a file that cannot be created is reported once and the sink goes quiet", () => {
  const root = tempDir("wright-log-")
  writeFileSync(path.join(root, "blocker"), "a file where the directory should be")
  const errors: unknown[] = []
  const sink = fileSink(path.join(root, "blocker", "log"), { onError: (e) => errors.push(e) })
  sink.write("a\n")
  sink.flush!()
  sink.write("b\n")
  sink.flush!()
  expect(errors).toHaveLength(1)
})

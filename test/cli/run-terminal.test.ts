// A hostile repository's text, echoed by the model or printed by a tool, must not drive the
// user's terminal through `wright run`: no clipboard write (OSC 52), no window title (OSC 2),
// no hidden or overwritten line. The renderer is the one place run writes to the terminal;
// these feed it the events a real run publishes and read what would reach the terminal.
import { describe, expect, test } from "vitest"
import { jsonRenderer, textRenderer } from "../../src/cli/run/render"
import type { BusEvent, ToolPart } from "../../src/protocol"

const ROOT = "ses_root"
const OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"
const TITLE = "\x1b]2;pwned\x07"
const HIDE = "\x1b[8msecret\x1b[0m"
const ESC_OR_BEL = /[\x07\x1b\x9b\x9d]/

function capture(tty: boolean, make: typeof textRenderer | typeof jsonRenderer = textRenderer) {
  const out = { stdout: "", stderr: "" }
  const sink = { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s) }
  const r = make === textRenderer ? textRenderer(sink, { root: ROOT, sessions: new Set([ROOT]), thinking: true, tty }) : jsonRenderer(sink, { sessions: new Set([ROOT]), thinking: true })
  return { out, r }
}
const delta = (partID: string, d: string): BusEvent => ({ type: "message.part.delta", properties: { sessionID: ROOT, messageID: "msg_1", partID, field: "text", delta: d } }) as BusEvent
const updated = (part: ToolPart | Record<string, unknown>): BusEvent => ({ type: "message.part.updated", properties: { sessionID: ROOT, part, time: 0 } }) as BusEvent
const tool = (state: ToolPart["state"]): ToolPart => ({ id: "prt_t", sessionID: ROOT, messageID: "msg_1", type: "tool", callID: "c1", tool: "bash", state })

describe("run - terminal control sequences from untrusted text", () => {
  test("run - on a terminal, the answer's escape sequences are shown, not obeyed, even split across deltas", async () => {
    const { out, r } = capture(true)
    r.event(delta("prt_a", `See ${OSC52.slice(0, 3)}`))
    r.event(delta("prt_a", `${OSC52.slice(3)} and ${TITLE} then ${HIDE}\rfake line\r\nnext`))
    r.finish()
    expect(out.stdout).not.toMatch(ESC_OR_BEL)
    expect(out.stdout).toContain("^[]52;c;cm0gLXJmIH4K^G")
    expect(out.stdout).toContain("^[[8msecret^[[0m^Mfake line\nnext")
  })

  test("run - piped to a file, the answer keeps its exact bytes", () => {
    const { out, r } = capture(false)
    r.event(delta("prt_a", `raw ${TITLE}\r\n`))
    r.finish()
    expect(out.stdout).toBe(`raw ${TITLE}\r\n`)
  })

  test("run - tool titles, tool errors, reasoning and errors on stderr are always made visible", () => {
    const { out, r } = capture(false)
    r.event(updated({ id: "prt_r", sessionID: ROOT, messageID: "msg_1", type: "reasoning", text: "", time: { start: 1 } }))
    r.event(delta("prt_r", `thinking ${OSC52}`))
    r.event(updated(tool({ status: "completed", input: { command: "x" }, output: "o", title: `cat README${TITLE}`, metadata: { summary: { title: `$ rm -rf ~\r${HIDE}echo hi`, kind: "execute", locations: [] } }, time: { start: 1, end: 2 } })))
    r.event(updated({ ...tool({ status: "error", input: {}, error: `failed ${OSC52}`, time: { start: 1, end: 2 } }), id: "prt_u" }))
    r.error(ROOT, { name: "APIError", data: { message: `provider said ${TITLE}` } })
    r.finish()
    // Only wright's own colour codes (SGR, ESC[…m) may remain; none of the attacker's sequences.
    const own = out.stderr.replace(/\x1b\[[0-9;]*m/g, "")
    expect(own).not.toMatch(ESC_OR_BEL)
    expect(own).toContain("$ rm -rf ~^M^[[8msecret^[[0mecho hi")
    expect(own).toContain("thinking ^[]52;c;")
    expect(own).toContain("failed ^[]52;c;")
    expect(own).toContain("provider said ^[]2;pwned^G")
  })

  test("run - --format json carries control characters only as JSON escapes", () => {
    const { out, r } = capture(true, jsonRenderer)
    r.event(updated({ id: "prt_x", sessionID: ROOT, messageID: "msg_1", type: "text", text: `hi ${OSC52}${HIDE}\r`, time: { start: 1, end: 2 } }))
    r.error(ROOT, { name: "APIError", data: { message: TITLE } })
    expect(out.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/)
    expect(JSON.parse(out.stdout.split("\n")[0]!).part.text).toBe(`hi ${OSC52}${HIDE}\r`)
  })
})

test("run - the untrusted-folder notice shows a hostile config's key names, never their escapes", async () => {
  const { trustNotice } = await import("../../src/cli/trust/notice")
  const line = trustNotice({ trusted: false, changed: false, ignored: [`mcp.${OSC52}x`, `provider${TITLE}`] }) ?? ""
  expect(line.replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(ESC_OR_BEL)
  expect(line).toContain("mcp.^[]52;c;")
})

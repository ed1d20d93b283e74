import { describe, expect, it } from "vitest"
import { createBus } from "../../src/bus"
import { type AskInput, createPermissions, fromConfig } from "../../src/permission"
import { PermissionCorrectedError, PermissionDeniedError, PermissionRejectedError, type PermissionRequest, type Ruleset } from "../../src/protocol"

const ruleset: Ruleset = fromConfig({ "*": "allow", bash: { "*": "ask", "ls *": "allow", "rm *": "deny" } }, "/home/ada")

function setup() {
  const bus = createBus()
  const asked: PermissionRequest[] = []
  const replied: { sessionID: string; requestID: string; reply: string }[] = []
  bus.subscribe("permission.asked", (e) => void asked.push(e.properties))
  bus.subscribe("permission.replied", (e) => void replied.push(e.properties))
  let n = 0
  const permissions = createPermissions({ bus, newId: () => `per_${++n}` })
  return { permissions, asked, replied }
}

function input(patch: Partial<AskInput> = {}): AskInput {
  return {
    sessionID: "ses_a",
    permission: "bash",
    patterns: ["git commit -m x"],
    always: ["git commit *"],
    metadata: { command: "git commit -m x" },
    tool: { messageID: "msg_1", callID: "call_1" },
    ruleset,
    ...patch,
  }
}

/** Settles to "resolved" or the rejection, without leaving an unhandled rejection behind. */
function outcome(p: Promise<void>): Promise<unknown> {
  return p.then(
    () => "resolved",
    (e: unknown) => e,
  )
}

const tick = () => new Promise((r) => setTimeout(r, 0))

describe("permission service", () => {
  it("permission service - an ask publishes permission.asked with the request and waits", async () => {
    const { permissions, asked } = setup()
    let settled = false
    const p = permissions.ask(input()).then(() => (settled = true))
    await tick()
    expect(asked).toEqual([
      {
        id: "per_1",
        sessionID: "ses_a",
        permission: "bash",
        patterns: ["git commit -m x"],
        metadata: { command: "git commit -m x" },
        always: ["git commit *"],
        tool: { messageID: "msg_1", callID: "call_1" },
      },
    ])
    expect(settled).toBe(false)
    expect(permissions.list("ses_a").map((r) => r.id)).toEqual(["per_1"])
    permissions.reply("per_1", "once")
    await p
    expect(settled).toBe(true)
  })

  it("permission service - allowed patterns resolve at once without publishing", async () => {
    const { permissions, asked } = setup()
    await permissions.ask(input({ patterns: ["ls -la"] }))
    expect(asked).toEqual([])
  })

  it("permission service - a deny rule throws PermissionDeniedError without publishing", async () => {
    const { permissions, asked } = setup()
    const error = await outcome(permissions.ask(input({ patterns: ["ls", "rm -rf /"] })))
    expect(PermissionDeniedError.is(error)).toBe(true)
    const data = (error as InstanceType<typeof PermissionDeniedError>).data
    expect(data.message).toContain("rm -rf /")
    expect(data.rules).toEqual([{ permission: "bash", pattern: "rm *", action: "deny" }])
    expect(asked).toEqual([])
  })

  it("permission service - once resolves only that request and adds no rule", async () => {
    const { permissions, asked, replied } = setup()
    const p = permissions.ask(input())
    await tick()
    expect(permissions.reply(asked[0].id, "once")).toBe(true)
    await p
    expect(replied).toEqual([{ sessionID: "ses_a", requestID: "per_1", reply: "once" }])
    expect(permissions.approved()).toEqual([])
    const again = outcome(permissions.ask(input()))
    await tick()
    expect(asked).toHaveLength(2)
    permissions.reply(asked[1].id, "once")
    expect(await again).toBe("resolved")
  })

  it("permission service - always adds allow rules and settles the session's other asks they cover", async () => {
    const { permissions, asked, replied } = setup()
    const first = outcome(permissions.ask(input()))
    const covered = outcome(permissions.ask(input({ patterns: ["git commit --amend"], tool: { messageID: "msg_1", callID: "call_2" } })))
    const notCovered = outcome(permissions.ask(input({ patterns: ["git push"], always: ["git push *"] })))
    const otherSession = outcome(permissions.ask(input({ sessionID: "ses_b" })))
    await tick()
    expect(asked).toHaveLength(4)

    permissions.reply("per_1", "always")
    expect(await first).toBe("resolved")
    expect(await covered).toBe("resolved")
    expect(permissions.approved()).toEqual([{ permission: "bash", pattern: "git commit *", action: "allow" }])
    expect(replied.map((r) => [r.requestID, r.reply])).toEqual([
      ["per_1", "always"],
      ["per_2", "always"],
    ])
    expect(permissions.list().map((r) => r.id)).toEqual(["per_3", "per_4"])

    // New asks the approval covers pass without asking, in any session.
    await permissions.ask(input({ sessionID: "ses_c", patterns: ["git commit -m y"] }))
    expect(asked).toHaveLength(4)

    permissions.reply("per_3", "once")
    permissions.reply("per_4", "once")
    expect(await notCovered).toBe("resolved")
    expect(await otherSession).toBe("resolved")
  })

  it("permission service - an always approval never overrides a deny rule", async () => {
    const { permissions, asked } = setup()
    const p = outcome(permissions.ask(input({ patterns: ["rmdir x"], always: ["rm*"] })))
    await tick()
    permissions.reply(asked[0].id, "always")
    expect(await p).toBe("resolved")
    const error = await outcome(permissions.ask(input({ patterns: ["rm -rf src"] })))
    expect(PermissionDeniedError.is(error)).toBe(true)
  })

  it("permission service - reject fails the request and every other pending ask of the session", async () => {
    const { permissions, asked, replied } = setup()
    const a = outcome(permissions.ask(input()))
    const b = outcome(permissions.ask(input({ patterns: ["git push"] })))
    const other = outcome(permissions.ask(input({ sessionID: "ses_b" })))
    await tick()
    permissions.reply(asked[0].id, "reject")
    const errorA = await a
    const errorB = await b
    expect(PermissionRejectedError.is(errorA)).toBe(true)
    expect(PermissionRejectedError.is(errorB)).toBe(true)
    expect((errorA as Error).message).toMatch(/rejected/)
    expect(replied.map((r) => [r.requestID, r.reply])).toEqual([
      ["per_1", "reject"],
      ["per_2", "reject"],
    ])
    expect(permissions.list().map((r) => r.sessionID)).toEqual(["ses_b"])
    permissions.reply(asked[2].id, "once")
    expect(await other).toBe("resolved")
  })

  it("permission service - reject with a message becomes PermissionCorrectedError carrying the feedback", async () => {
    const { permissions, asked } = setup()
    const p = outcome(permissions.ask(input()))
    await tick()
    permissions.reply(asked[0].id, "reject", "use git commit --amend instead")
    const error = await p
    expect(PermissionCorrectedError.is(error)).toBe(true)
    const data = (error as InstanceType<typeof PermissionCorrectedError>).data
    expect(data.feedback).toBe("use git commit --amend instead")
    expect(data.message).toContain("use git commit --amend instead")
  })

  it("permission service - a reply to an unknown or settled request returns false", async () => {
    const { permissions, asked } = setup()
    expect(permissions.reply("per_missing", "once")).toBe(false)
    const p = permissions.ask(input())
    await tick()
    expect(permissions.reply(asked[0].id, "once")).toBe(true)
    await p
    expect(permissions.reply(asked[0].id, "once")).toBe(false)
  })

  it("permission service - a reply that is not once, always or reject is refused and settles nothing", async () => {
    const { permissions, asked } = setup()
    const p = outcome(permissions.ask(input()))
    await tick()
    expect(() => permissions.reply(asked[0].id, "yes" as never)).toThrow(/reply: expected "once", "always" or "reject", got "yes"/)
    expect(permissions.list()).toHaveLength(1)
    permissions.reply(asked[0].id, "once")
    expect(await p).toBe("resolved")
  })

  it("permission service - an abort signal rejects the pending ask with the signal's reason", async () => {
    const { permissions, replied } = setup()
    const controller = new AbortController()
    const p = outcome(permissions.ask(input(), controller.signal))
    await tick()
    const reason = new Error("stopped by the user")
    controller.abort(reason)
    expect(await p).toBe(reason)
    expect(permissions.list()).toEqual([])
    expect(replied.map((r) => r.reply)).toEqual(["reject"])
  })

  it("permission service - an already aborted signal rejects before publishing", async () => {
    const { permissions, asked } = setup()
    const controller = new AbortController()
    controller.abort(new Error("gone"))
    const error = await outcome(permissions.ask(input(), controller.signal))
    expect((error as Error).message).toBe("gone")
    expect(asked).toEqual([])
  })

  it("permission service - cancelSession rejects that session's pending asks only", async () => {
    const { permissions, asked } = setup()
    const a = outcome(permissions.ask(input()))
    const b = outcome(permissions.ask(input({ sessionID: "ses_b" })))
    await tick()
    permissions.cancelSession("ses_a")
    expect(PermissionRejectedError.is(await a)).toBe(true)
    expect(permissions.list().map((r) => r.id)).toEqual([asked[1].id])
    permissions.reply(asked[1].id, "once")
    expect(await b).toBe("resolved")
  })

  it("permission service - forceAsk asks even when every pattern is allowed, and always does not settle it", async () => {
    const { permissions, asked } = setup()
    const normal = outcome(permissions.ask(input({ patterns: ["git status"], always: ["git status *"] })))
    const forced = outcome(permissions.ask(input({ patterns: ["ls $DIR"], always: ["ls *"], forceAsk: true })))
    await tick()
    expect(asked.map((r) => r.patterns)).toEqual([["git status"], ["ls $DIR"]])
    permissions.reply(asked[0].id, "always")
    expect(await normal).toBe("resolved")
    expect(permissions.list().map((r) => r.id)).toEqual([asked[1].id])
    permissions.reply(asked[1].id, "once")
    expect(await forced).toBe("resolved")
  })

  it("permission service - forceAsk still denies when a rule denies", async () => {
    const { permissions, asked } = setup()
    const error = await outcome(permissions.ask(input({ patterns: ["rm $X"], forceAsk: true })))
    expect(PermissionDeniedError.is(error)).toBe(true)
    expect(asked).toEqual([])
  })
  it("permission service - forceAsk is allowed when every rule that could apply allows (\"*\": \"allow\", \"bash\": \"allow\")", async () => {
    for (const cfg of ["allow", { bash: "allow" }, { "*": "allow", bash: { "*": "allow", "ls *": "allow" } }]) {
      const { permissions, asked } = setup()
      await permissions.ask(input({ patterns: ["echo x | xargs rm"], forceAsk: true, ruleset: fromConfig(cfg, "/home/ada") }))
      expect(asked).toEqual([])
    }
  })

  it("permission service - forceAsk still asks when a rule that is not allow may apply, and a rule for the exact text settles it", async () => {
    const { permissions, asked } = setup()
    const loose = fromConfig({ bash: { "*": "allow", "git push *": "ask" } }, "/home/ada")
    const p = outcome(permissions.ask(input({ patterns: ["echo x | xargs rm"], forceAsk: true, ruleset: loose })))
    await tick()
    expect(asked.map((r) => r.patterns)).toEqual([["echo x | xargs rm"]])
    permissions.reply(asked[0]!.id, "reject")
    expect(PermissionRejectedError.is(await p)).toBe(true)
    const exact = fromConfig({ bash: { "*": "allow", "git push *": "ask", "./build.sh": "allow" } }, "/home/ada")
    await permissions.ask(input({ patterns: ["./build.sh"], forceAsk: true, ruleset: exact }))
    expect(asked).toHaveLength(1)
  })
})

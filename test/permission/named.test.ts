import { describe, expect, it } from "vitest"
import { createBus } from "../../src/bus"
import { createPermissions, fromConfig, judge, namesHost } from "../../src/permission"
import { PermissionDeniedError } from "../../src/protocol"

const NAMING: [string, boolean][] = [
  ["http://127.0.0.1:8080/*", true],
  ["http://127.0.0.1:*", true],
  ["https://[::1]/*", true],
  ["http://localhost/*", true],
  ["http://devbox.internal", true],
  ["https:\\\\example.com\\*", true],
  ["*", false],
  ["http://*", false],
  ["https://*.internal/*", false],
  ["*://localhost/*", false],
  ["http*://localhost/*", false],
  ["http://127.0.0.1*", false],
  ["http://127.0.0.?/*", false],
  ["http:///x", false],
  ["localhost", false],
]

describe("named rules", () => {
  it.each(NAMING)("named rules - %j names a host: %s", (pattern, names) => {
    expect(namesHost(pattern)).toBe(names)
  })

  const url = "http://127.0.0.1:8080/status"
  const rules = (cfg: unknown) => fromConfig({ "*": "allow", ...(cfg as object) })

  it("named rules - a named request is denied without a rule naming it, even under allow-everything", () => {
    expect(judge("webfetch", [url], rules({}), [], { named: true })).toEqual({ action: "deny", pattern: url, rule: undefined })
    expect(judge("webfetch", [url], rules({ webfetch: { "*": "allow", "http://*": "allow" } }), [], { named: true }).action).toBe("deny")
    expect(judge("webfetch", [url], rules({}), []).action).toBe("allow")
  })

  it("named rules - the naming rule's action decides, and any other deny still wins", () => {
    expect(judge("webfetch", [url], rules({ webfetch: { "http://127.0.0.1:8080/*": "allow" } }), [], { named: true }).action).toBe("allow")
    expect(judge("webfetch", [url], rules({ webfetch: { "http://127.0.0.1:8080/*": "ask" } }), [], { named: true }).action).toBe("ask")
    // A later catch-all does not override the naming rule for a named request...
    expect(judge("webfetch", [url], rules({ webfetch: { "http://127.0.0.1:8080/*": "deny", "*": "allow" } }), [], { named: true }).action).toBe("deny")
    // ...and a rule that denies the URL denies it whatever names it.
    expect(judge("webfetch", [url], rules({ webfetch: { "http://127.0.0.1:8080/*": "allow", "*/status": "deny" } }), [], { named: true }).action).toBe("deny")
    // Another port or host is not named.
    expect(judge("webfetch", ["http://127.0.0.1:9090/"], rules({ webfetch: { "http://127.0.0.1:8080/*": "allow" } }), [], { named: true }).action).toBe("deny")
  })

  it("named rules - an 'always' for a catch-all does not approve a named request; one for its origin does", () => {
    const ruleset = rules({ webfetch: { "http://127.0.0.1:8080/*": "ask" } })
    const catchAll = fromConfig({ webfetch: { "*": "allow" } })
    const origin = fromConfig({ webfetch: { "http://127.0.0.1:8080/*": "allow" } })
    expect(judge("webfetch", [url], ruleset, catchAll, { named: true }).action).toBe("ask")
    expect(judge("webfetch", [url], ruleset, origin, { named: true }).action).toBe("allow")
  })

  it("named rules - the service refuses without a naming rule with empty rules and the rule that would allow it", async () => {
    const permissions = createPermissions({ bus: createBus() })
    const error = await permissions
      .ask({ sessionID: "ses_a", permission: "webfetch", patterns: [url], always: ["http://127.0.0.1:8080/*"], metadata: {}, ruleset: rules({}), named: true })
      .catch((e: unknown) => e)
    expect(PermissionDeniedError.is(error)).toBe(true)
    const denied = error as InstanceType<typeof PermissionDeniedError>
    expect(denied.data.rules).toEqual([])
    expect(denied.message).toContain('"permission": {"webfetch":{"http://127.0.0.1:8080/*":"allow"}}')
  })
})

// Running a command outside the OS sandbox (`sandbox_escape`) is allowed only by a rule that
// names it: a blanket allow (`"*"`, `"permission": "allow"`, a wildcard key) is passed over as
// if absent, while a blanket ask or deny still counts. Plugins' permission.ask cannot approve
// it either. The table reads as the specification.
import { expect, test } from "vitest"
import { createBus } from "../../src/bus"
import { createPermissions, defaults, fromConfig, judge, merge } from "../../src/permission"
import type { PermissionRequest } from "../../src/protocol"

const HOME = "/home/ada"
const base = defaults({ toolOutputDir: "/tmp/wright-out" })
const rulesOf = (config: unknown) => merge(base, fromConfig(config, HOME))

test.each([
  ["the defaults ask", undefined, "npm install", "ask"],
  ['"*": "allow" does not allow it', { "*": "allow" }, "npm install", "ask"],
  ['"permission": "allow" does not allow it', "allow", "npm install", "ask"],
  ['a wildcard key "sandbox_*" does not allow it', { "sandbox_*": "allow" }, "npm install", "ask"],
  ['"sandbox_escape": "allow" allows it', { sandbox_escape: "allow" }, "npm install", "allow"],
  ["a rule naming it with a pattern allows what it matches", { sandbox_escape: { "npm *": "allow" } }, "npm install", "allow"],
  ["a rule naming it with a pattern asks for the rest", { "*": "allow", sandbox_escape: { "npm *": "allow" } }, "rm -rf ~", "ask"],
  ['a blanket "*": "deny" still denies it', { sandbox_escape: "allow", "*": "deny" }, "npm install", "deny"],
  ['a blanket "*": "ask" after a naming allow still asks', { sandbox_escape: "allow", "*": "ask" }, "npm install", "ask"],
  ['"sandbox_escape": "deny" denies it', { "*": "allow", sandbox_escape: "deny" }, "npm install", "deny"],
] as const)("sandbox_escape - %s", (_name, config, command, action) => {
  expect(judge("sandbox_escape", [command], rulesOf(config)).action).toBe(action)
})

test("sandbox_escape - a blanket allow still allows every other permission", () => {
  expect(judge("bash", ["rm -rf build"], rulesOf({ "*": "allow" })).action).toBe("allow")
  expect(judge("external_directory", ["/etc/*"], rulesOf("allow")).action).toBe("allow")
})

test("sandbox_escape - a plugin's permission.ask that approves everything does not approve it; the user is asked, and 'always' names it", async () => {
  const bus = createBus()
  const asked: PermissionRequest[] = []
  bus.subscribe("permission.asked", (e) => void asked.push(e.properties))
  const permissions = createPermissions({ bus, decide: async () => "allow" })
  const ask = (permission: string) =>
    permissions.ask({ sessionID: "ses_a", permission, patterns: ["bash task.sh"], always: ["bash task.sh"], metadata: {}, ruleset: rulesOf(undefined) })

  await ask("doom_loop")
  expect(asked).toEqual([])
  const escape = ask("sandbox_escape")
  await new Promise((r) => setTimeout(r, 0))
  expect(asked.map((a) => a.permission)).toEqual(["sandbox_escape"])
  permissions.reply(asked[0]!.id, "always")
  await escape
  // The user's "always" is a rule naming sandbox_escape and this command: the next one goes through.
  await ask("sandbox_escape")
  expect(asked).toHaveLength(1)
})

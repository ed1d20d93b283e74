// A tool context whose asks go through the real permission service with real rules (the
// built-in defaults plus `rules` in config form), mapped the way the session's tool-call
// pipeline maps them. A deny rule throws; an ask that reaches the user is recorded in
// `asked` and answered by `reply` ("reject" unless told otherwise).
import { createBus } from "../../src/bus"
import { createPermissions, defaults, fromConfig, merge } from "../../src/permission"
import type { PermissionReply, PermissionRequest } from "../../src/protocol"
import { type TestContext, toolContext } from "../lib/tool-context"

export interface RuledContext extends TestContext {
  /** Requests no rule settled: the ones a user would have seen. */
  asked: PermissionRequest[]
}

export function ruledContext(opts: {
  rules?: unknown
  reply?: (req: PermissionRequest) => PermissionReply
  directory?: string
  worktree?: string
} = {}): RuledContext {
  const bus = createBus()
  const permissions = createPermissions({ bus })
  const asked: PermissionRequest[] = []
  bus.subscribe("permission.asked", (e) => {
    asked.push(e.properties)
    const answer = opts.reply?.(e.properties) ?? "reject"
    queueMicrotask(() => permissions.reply(e.properties.id, answer))
  })
  let ruleset = fromConfig(opts.rules)
  const ctx = toolContext({
    directory: opts.directory,
    worktree: opts.worktree,
    decide: (req) =>
      permissions.ask({
        sessionID: ctx.sessionID,
        permission: req.permission,
        patterns: req.patterns,
        always: req.always,
        metadata: req.metadata ?? {},
        forceAsk: req.forceAsk,
        named: req.named,
        ruleset,
      }),
  })
  ruleset = merge(defaults({ toolOutputDir: ctx.outputDir }), ruleset)
  return Object.assign(ctx, { asked })
}

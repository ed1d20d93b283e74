// Pending permission asks and the user's replies. An ask that the rules settle returns
// (or throws) at once; otherwise it is published as `permission.asked` and waits for
// reply(), an abort signal, or cancelSession(). Approvals given with "always" live in
// memory for the life of this service and never override a rule that denies.
import type { Bus } from "../bus"
import {
  PermissionCorrectedError,
  PermissionDeniedError,
  PermissionRejectedError,
  type PermissionReply,
  type PermissionRequest,
  type PermissionRule,
  type Ruleset,
} from "../protocol"
import { Id, Wildcard } from "../util"
import { counts, evaluate, lastMatch, NAMED_ONLY } from "./rules"
import { namesHost } from "./url"

export interface AskInput {
  sessionID: string
  permission: string
  patterns: string[]
  always: string[]
  metadata: Record<string, unknown>
  tool?: { messageID: string; callID: string }
  ruleset: Ruleset
  /**
   * The request cannot be judged from its patterns (dynamic shell code): it is asked unless
   * every rule that could apply to it allows (see `allowsEverything`), or each of its
   * patterns is allowed by a rule written for exactly that text.
   */
  forceAsk?: boolean
  /**
   * Only a rule that names the host (see `namesHost`) can let this request through: it is
   * denied unless such a rule allows or asks, on top of what the other rules say. Denied for
   * want of such a rule, the error's `rules` is empty.
   */
  named?: boolean
}

export interface Permissions {
  ask(input: AskInput, signal?: AbortSignal): Promise<void>
  reply(requestID: string, reply: PermissionReply, message?: string): boolean
  list(sessionID?: string): PermissionRequest[]
  cancelSession(sessionID: string): void
  approved(): Ruleset
}

interface Pending {
  request: PermissionRequest
  ruleset: Ruleset
  forceAsk: boolean
  named: boolean
  resolve(): void
  reject(error: unknown): void
}

/** A deny without a rule: the request needed a rule that names it, and none does. */
export type Verdict = { action: "allow" | "ask" } | { action: "deny"; pattern: string; rule?: PermissionRule }

/**
 * How the service judges a request before asking anyone: any pattern denied denies. With
 * `named`, each pattern must also meet a rule that names its host, and that rule's action
 * counts too (a catch-all allow does not make it allowed).
 */
export function judge(
  permission: string,
  patterns: string[],
  ruleset: Ruleset,
  approved: Ruleset = [],
  opts: { forceAsk?: boolean; named?: boolean } = {},
): Verdict {
  let ask = opts.forceAsk === true && !allowsEverything(permission, ruleset) && !patterns.every((p) => allowedExactly(permission, p, ruleset, approved))
  const naming = opts.named ? ruleset.filter((r) => namesHost(r.pattern)) : []
  const namingApproved = opts.named ? approved.filter((r) => namesHost(r.pattern)) : []
  for (const pattern of patterns.length > 0 ? patterns : ["*"]) {
    const rule = evaluate(permission, pattern, ruleset)
    if (rule.action === "deny") return { action: "deny", pattern, rule }
    if (rule.action === "ask" && evaluate(permission, pattern, ruleset, approved).action !== "allow") ask = true
    if (!opts.named) continue
    const named = lastMatch(permission, pattern, naming)
    if (!named || named.action === "deny") return { action: "deny", pattern, rule: named }
    if (named.action === "ask" && lastMatch(permission, pattern, naming, namingApproved)?.action !== "allow") ask = true
  }
  return { action: ask ? "ask" : "allow" }
}

/**
 * Of several rulesets, the one that judges the request most strictly (deny, then ask, then
 * allow; the first on a tie): asking with it gives the meet of them all, asked at most once.
 */
export function strictest(request: { permission: string; patterns: string[]; forceAsk?: boolean; named?: boolean }, rulesets: Ruleset[], approved: Ruleset = []): Ruleset {
  const rank = { allow: 0, ask: 1, deny: 2 }
  let best = rulesets[0] ?? []
  let bestRank = -1
  for (const ruleset of rulesets) {
    const r = rank[judge(request.permission, request.patterns, ruleset, approved, request).action]
    if (r > bestRank) [best, bestRank] = [ruleset, r]
  }
  return best
}

/**
 * True when whatever the pattern, the rules allow `permission`: the last rule for it that
 * matches everything allows, and no rule after it says otherwise. A command the gate cannot
 * read may hide anything, so only then is it as good as allowed.
 */
export function allowsEverything(permission: string, ruleset: Ruleset): boolean {
  for (let i = ruleset.length - 1; i >= 0; i--) {
    const rule = ruleset[i]
    if (!Wildcard.match(permission, rule.permission) || !counts(rule, permission)) continue
    if (rule.action !== "allow") return false
    if (rule.pattern === "*") return true
  }
  return false
}

/** The pattern's deciding rule allows it and names exactly this text, no wildcard. */
function allowedExactly(permission: string, pattern: string, ruleset: Ruleset, approved: Ruleset): boolean {
  const rule = lastMatch(permission, pattern, ruleset, approved)
  return rule?.action === "allow" && rule.pattern === pattern && !/[*?]/.test(rule.pattern)
}

const REPLIES: string[] = ["once", "always", "reject"]
const REJECTED = "The user rejected this tool call. Do not retry it; stop and wait for the user's next message."
const CANCELLED = "The permission request was cancelled because the session was aborted."

export interface PermissionsDeps {
  bus: Bus
  newId?: () => string
  /**
   * Contract: called for an ask the rules leave open, before the user is asked (plugins'
   * permission.ask); "allow" or "deny" settle it ("allow" not for a NAMED_ONLY permission),
   * "ask" asks the user. Must not reject.
   * Undefined: the user is asked.
   */
  decide?: (request: PermissionRequest) => Promise<"allow" | "deny" | "ask">
}

export function createPermissions(deps: PermissionsDeps): Permissions {
  const newId = deps.newId ?? (() => Id.ascending("per"))
  const pending = new Map<string, Pending>()
  const approvedRules: Ruleset = []

  function settle(id: string, reply: PermissionReply): Pending | undefined {
    const entry = pending.get(id)
    if (!entry) return undefined
    pending.delete(id)
    deps.bus.publish("permission.replied", { sessionID: entry.request.sessionID, requestID: id, reply })
    return entry
  }

  function sessionPending(sessionID: string): Pending[] {
    return [...pending.values()].filter((p) => p.request.sessionID === sessionID)
  }

  function rejectSession(sessionID: string, message: string): void {
    for (const other of sessionPending(sessionID)) settle(other.request.id, "reject")?.reject(new PermissionRejectedError({ message }))
  }

  return {
    async ask(input, signal) {
      const verdict = judge(input.permission, input.patterns, input.ruleset, approvedRules, input)
      if (verdict.action === "deny") throw denied(input, verdict)
      if (verdict.action === "allow") return
      signal?.throwIfAborted()
      const request: PermissionRequest = {
        id: newId(),
        sessionID: input.sessionID,
        permission: input.permission,
        patterns: input.patterns,
        metadata: input.metadata,
        always: input.always,
        ...(input.tool ? { tool: input.tool } : {}),
      }
      const decided = deps.decide ? await deps.decide(request) : "ask"
      // A plugin approving every ask is a blanket allow too: it cannot settle these.
      if (decided === "allow" && !NAMED_ONLY.has(input.permission)) return
      if (decided === "deny") throw new PermissionDeniedError({ message: `A plugin denied this call (${input.permission}: ${input.patterns.join(", ")}). Do not retry it or work around it; choose another approach or ask the user.`, rules: [] })
      signal?.throwIfAborted()
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => settle(request.id, "reject")?.reject(signal?.reason)
        const done = () => signal?.removeEventListener("abort", onAbort)
        pending.set(request.id, {
          request,
          ruleset: input.ruleset,
          forceAsk: input.forceAsk === true,
          named: input.named === true,
          resolve: () => (done(), resolve()),
          reject: (e) => (done(), reject(e)),
        })
        signal?.addEventListener("abort", onAbort, { once: true })
        deps.bus.publish("permission.asked", request)
      })
    },

    reply(requestID, reply, message) {
      if (!REPLIES.includes(reply)) throw new Error(`reply: expected "once", "always" or "reject", got ${JSON.stringify(reply)}`)
      const entry = settle(requestID, reply)
      if (!entry) return false
      const { request } = entry
      if (reply === "reject") {
        const feedback = message?.trim()
        entry.reject(
          feedback
            ? new PermissionCorrectedError({ message: `The user rejected this tool call with this feedback: ${feedback}\nFollow the feedback before going on.`, feedback })
            : new PermissionRejectedError({ message: REJECTED }),
        )
        rejectSession(request.sessionID, REJECTED)
        return true
      }
      if (reply === "always") {
        for (const pattern of request.always) {
          const known = approvedRules.some((r) => r.permission === request.permission && r.pattern === pattern)
          if (!known) approvedRules.push({ permission: request.permission, pattern, action: "allow" })
        }
      }
      entry.resolve()
      if (reply === "always") {
        for (const other of sessionPending(request.sessionID)) {
          const { permission, patterns } = other.request
          if (judge(permission, patterns, other.ruleset, approvedRules, other).action === "allow") settle(other.request.id, "always")?.resolve()
        }
      }
      return true
    },

    list(sessionID) {
      return [...pending.values()].map((p) => p.request).filter((r) => sessionID === undefined || r.sessionID === sessionID)
    },

    cancelSession(sessionID) {
      rejectSession(sessionID, CANCELLED)
    },

    approved() {
      return approvedRules.map((r) => ({ ...r }))
    },
  }
}

function denied(input: AskInput, verdict: { pattern: string; rule?: PermissionRule }): InstanceType<typeof PermissionDeniedError> {
  const { pattern } = verdict
  if (!verdict.rule) {
    const suggestion = JSON.stringify({ [input.permission]: { [input.always[0] ?? pattern]: "allow" } })
    return new PermissionDeniedError({
      message:
        `No permission rule names this call (${input.permission}: ${JSON.stringify(pattern)}), and it needs one: ` +
        `a rule that matches everything, such as "*", does not count. A rule that would allow it: "permission": ${suggestion}`,
      rules: [],
    })
  }
  const rules = input.ruleset.filter((r) => Wildcard.match(input.permission, r.permission) && r.action === "deny")
  return new PermissionDeniedError({
    message:
      `A permission rule forbids this call (${input.permission}: ${JSON.stringify(pattern)}). ` +
      `Do not retry it or work around it; choose another approach or ask the user. Rules that deny ${input.permission}: ${JSON.stringify(rules)}`,
    rules,
  })
}

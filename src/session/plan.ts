// Plan mode's two switches. plan_exit (plan agent only) reads the session's plan file, asks
// the user to approve it (a `plan_exit` permission ask carrying the plan text, so every front
// end shows what is being approved; a headless run refuses it unless --auto), then adds a
// synthetic user message for `build` holding the plan: the loop's next step runs as build
// with the plan in its context. plan_enter (build only) asks, then hands the session to plan.
import { lstat, readFile } from "node:fs/promises"
import path from "node:path"
import { z } from "zod"
import { PLAN_DIR } from "../agent"
import type { UserMessage } from "../protocol"
import { defineTool, openContained, type Tool, type ToolContext } from "../tool"
import { Id } from "../util"
import type { History } from "./history"
import enterDescription from "./prompt/plan-enter.txt"
import exitDescription from "./prompt/plan-exit.txt"

/** The session's plan file, relative to the worktree (what rules and the user see). */
export function planFile(sessionID: string): string {
  return `${PLAN_DIR}/${sessionID}.md`
}

/**
 * Makes `.wright/plans/` before a plan step's tools run, through the file writer's contained
 * walk (no link followed out of the worktree). Why: a sandboxed command that starts while
 * `.wright/` is missing gets a mount point there, and what appears in it on the host meanwhile
 * (a plan written by the in-process write tool) is swept when the command ends. Never throws.
 */
export async function preparePlanDir(worktree: string): Promise<void> {
  try {
    const dir = await openContained([worktree], path.join(worktree, PLAN_DIR, "plan.md"))
    await dir.close()
  } catch {
    // A .wright that is a file or leads elsewhere: the write tool says so when the plan is written.
  }
}

const MAX_PLAN_BYTES = 256 * 1024

/** The plan's text; undefined when missing. Only a regular file (not a link) of sane size: its text goes to the model and the user. */
async function readPlan(file: string): Promise<string | undefined> {
  const info = await lstat(file).catch(() => undefined)
  if (!info) return undefined
  if (!info.isFile()) throw new Error(`${file} is not a regular file (a link or a folder); write the plan there with the write tool.`)
  if (info.size > MAX_PLAN_BYTES) throw new Error(`The plan in ${file} is ${info.size} bytes; keep it under ${MAX_PLAN_BYTES / 1024} KB.`)
  return readFile(file, "utf8")
}

export function createPlanTools(deps: { history: History }): Tool[] {
  /** The hand-off: a user message for `agent` on the model the session was last prompted with. */
  function handOff(ctx: ToolContext, agent: string, text: string) {
    // Front ends show the switch from this (the text itself is synthetic, for the model).
    const handoff = { from: ctx.agent, to: agent, filepath: planFile(ctx.sessionID) }
    const last = deps.history.messages(ctx.sessionID).findLast((m) => m.info.role === "user")?.info as UserMessage | undefined
    if (!last) throw new Error("The session has no user message to hand over from.")
    const info: UserMessage = { id: Id.ascending("msg"), sessionID: ctx.sessionID, role: "user", time: { created: Date.now() }, agent, model: last.model }
    deps.history.putMessage(info)
    deps.history.putPart({ id: Id.ascending("prt"), sessionID: ctx.sessionID, messageID: info.id, type: "text", text, synthetic: true, metadata: { handoff } })
  }

  const exit = defineTool({
    id: "plan_exit",
    description: exitDescription,
    parameters: z.object({}),
    summary: () => ({ title: "Hand the plan to build", kind: "other", locations: [] }),
    async execute(_args, ctx) {
      if (ctx.agent !== "plan") throw new Error(`plan_exit works only in plan mode; the ${ctx.agent} agent is not planning.`)
      const rel = planFile(ctx.sessionID)
      const plan = await readPlan(path.join(ctx.worktree, rel))
      if (!plan?.trim()) throw new Error(`There is no plan yet: write it to ${rel} (the write tool), then call plan_exit again.`)
      await ctx.ask({ permission: "plan_exit", patterns: [rel], always: ["*"], metadata: { filepath: rel, plan } })
      handOff(ctx, "build", `The user approved the plan in ${rel} and switched to the build agent: you may now edit files and run commands. Carry out this plan:\n\n${plan}`)
      return { title: "Plan approved: switching to build", output: "The user approved the plan. The session now switches to the build agent, which carries it out.", metadata: { filepath: rel, agent: "build" } }
    },
  })

  const enter = defineTool({
    id: "plan_enter",
    description: enterDescription,
    parameters: z.object({}),
    summary: () => ({ title: "Switch to plan mode", kind: "other", locations: [] }),
    async execute(_args, ctx) {
      if (ctx.agent === "plan") throw new Error("The session is already in plan mode.")
      const rel = planFile(ctx.sessionID)
      await ctx.ask({ permission: "plan_enter", patterns: [rel], always: [], metadata: { filepath: rel } })
      handOff(ctx, "plan", `The user switched to plan mode. Investigate, then write the plan to ${rel} and call plan_exit to ask for approval.`)
      return { title: "Switching to plan mode", output: "The user agreed to plan first. The session now switches to the plan agent.", metadata: { filepath: rel, agent: "plan" } }
    },
  })
  return [exit as Tool, enter as Tool]
}

import type { Agents } from "../agent"
import { stream, type Providers } from "../llm"
import { parseModelRef, type MessageWithParts, type Session, type UserMessage } from "../protocol"
import type { Logger } from "../util"

export const TITLE_MAX = 100

/** True for the titles wright gives new sessions before a real one is generated. */
export function isDefaultTitle(title: string): boolean {
  return /^(New session|Child session) - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(title)
}

/** First non-empty line, without think blocks, quotes or a "Title:" prefix, cut to 100 chars. */
export function cleanTitle(raw: string): string | undefined {
  const text = raw.replace(/<think>[\s\S]*?<\/think>/g, "")
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.length > 0)
  if (!line) return undefined
  const title = line.replace(/^title:\s*/i, "").replace(/^["'`*#\s]+|["'`*\s]+$/g, "")
  if (!title) return undefined
  return title.length > TITLE_MAX ? title.slice(0, TITLE_MAX - 3) + "..." : title
}

export interface TitleDeps {
  providers: Providers
  agents: Agents
  smallModel?: string
  /** Contract: the plugins' choice of a small model for this provider (experimental.provider.small_model); must not reject. Undefined or no answer: wright's own choice. */
  pluginSmallModel?(providerID: string): Promise<{ providerID: string; modelID: string } | undefined>
  setTitle(sessionID: string, title: string): void
  /** Where failed attempts are told (undefined: nowhere). */
  log?: Logger
}

/**
 * Names a root session after its first request, in the background, with the small model
 * (else the session's model). Never throws: a failed title leaves the default one.
 */
export async function generateTitle(deps: TitleDeps, session: Session, user: UserMessage, history: MessageWithParts[], requestReady?: Promise<void>): Promise<void> {
  if (session.parentID || !isDefaultTitle(session.title)) return
  // Only the first request names a session: stop looking at the second one.
  const users: MessageWithParts[] = []
  for (const m of history) {
    if (m.info.role !== "user" || !m.parts.some((p) => p.type === "text" && !p.synthetic)) continue
    users.push(m)
    if (users.length > 1) return
  }
  if (users.length !== 1) return
  const request = users[0]!.parts
    .filter((p) => p.type === "text" && !p.synthetic && !p.ignored)
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("\n")
    .slice(0, 4000)
  if (!request.trim()) return
  const agent = deps.agents.get("title")
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const ref = await pick(deps, user)
      // The run's own first request goes out before this one.
      await requestReady
      const model = await deps.providers.get(ref.providerID, ref.modelID)
      let text = ""
      let failed: unknown
      for await (const part of stream({
        model,
        system: [agent?.prompt ?? "Write a short title for this conversation."],
        messages: [{ role: "user", content: `Generate a title for this conversation:\n${request}` }],
        tools: {},
        abort: AbortSignal.timeout(30_000),
        temperature: agent?.temperature ?? 0.5,
        maxOutputTokens: 200,
        headers: { "x-wright-request": "title" },
      })) {
        if (part.type === "text-delta") text += part.delta
        else if (part.type === "error") failed = part.error
      }
      if (failed) throw failed
      const title = cleanTitle(text)
      if (title) deps.setTitle(session.id, title)
      else deps.log?.warn("title: the model answered no usable title", { session: session.id, answer: text.slice(0, 200) })
      return
    } catch (e) {
      // Retry a couple of times; titles are a courtesy, never an error.
      deps.log?.warn("title generation failed", { session: session.id, attempt: attempt + 1, error: e })
    }
  }
}

async function pick(deps: TitleDeps, user: UserMessage) {
  if (deps.smallModel) return parseModelRef(deps.smallModel, "small_model")
  return (await deps.pluginSmallModel?.(user.model.providerID)) ?? deps.providers.smallModel(user.model.providerID) ?? user.model
}

/** LoopHooks.firstStep: names the session in the background; the run does not wait for it. */
export function titleOnFirstStep(deps: TitleDeps) {
  return (input: { session: Session; user: UserMessage; history: MessageWithParts[]; requestReady?: Promise<void> }): void =>
    void generateTitle(deps, input.session, input.user, input.history, input.requestReady)
}

// The model an editor picks for a session: ACP's config option of category "model" (a select
// of every usable provider/model), and each model's context size for usage updates.
import type { SessionConfigOption, SessionConfigSelectOption } from "@agentclientprotocol/sdk/unstable"
import type { MessageWithParts } from "../protocol"
import type { Client } from "../sdk"

export const MODEL_OPTION = "model"

export interface Models {
  options: SessionConfigSelectOption[]
  /** "provider/model" → context window, in tokens. */
  context: Map<string, number>
  /** The configured default, else the first usable model. */
  fallback?: string
}

export async function modelsOf(api: Client): Promise<Models> {
  const [{ providers, default: defaults }, config] = await Promise.all([api.config.providers(), api.config.get()])
  const options: SessionConfigSelectOption[] = []
  const context = new Map<string, number>()
  for (const p of providers) {
    for (const m of Object.values(p.models)) {
      const value = `${p.id}/${m.id}`
      options.push({ value, name: `${p.name}: ${m.name || m.id}` })
      context.set(value, m.limit.context)
    }
  }
  const configured = typeof config.model === "string" ? config.model : undefined
  const first = providers[0] ? `${providers[0].id}/${defaults[providers[0].id] ?? Object.keys(providers[0].models)[0]}` : undefined
  return { options, context, fallback: configured ?? first }
}

/** The model of a session's latest prompt, if it had one. */
export function lastModel(messages: MessageWithParts[]): string | undefined {
  const user = messages.filter((m) => m.info.role === "user").at(-1)?.info
  return user?.role === "user" ? `${user.model.providerID}/${user.model.modelID}` : undefined
}

export function modelOption(models: Models, current: string | undefined): SessionConfigOption[] {
  if (models.options.length === 0 || !current) return []
  const options = models.options.some((o) => o.value === current) ? models.options : [{ value: current, name: current }, ...models.options]
  return [{ id: MODEL_OPTION, name: "Model", category: "model", type: "select", currentValue: current, options }]
}

// Which variant a prompt runs with: the one it names (`--variant`, a command's `variant`, the
// TUI's choice), else its agent's `variant` when the agent's model is the one in use (an agent
// without a model lends its variant to any model that has it). A named variant the model lacks
// is a BadRequestError naming the model and the variant; an agent's is checked the same way
// only when it comes with the agent's own model.
import type { Agent } from "../agent"
import type { Providers } from "../llm"
import { variantError } from "../llm"
import { BadRequestError } from "../protocol"

type Ref = { providerID: string; modelID: string }

export async function resolveVariant(providers: Providers, agent: Agent, model: Ref, given: string | undefined): Promise<string | undefined> {
  const sameModel = agent.model !== undefined && agent.model.providerID === model.providerID && agent.model.modelID === model.modelID
  const fromAgent = agent.variant !== undefined && (agent.model === undefined || sameModel)
  if (given === undefined && !fromAgent) return undefined
  const name = given ?? agent.variant!
  const info = (await providers.get(model.providerID, model.modelID)).info
  if (info.variants[name]) return name
  if (given === undefined && agent.model === undefined) return undefined
  const source = given === undefined ? `agent.${agent.name}.variant` : "variant"
  throw new BadRequestError({ message: variantError(info, name, source), issues: [{ path: given === undefined ? source : "variant", message: `no variant "${name}"` }] })
}

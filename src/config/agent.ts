import { z } from "zod"
import { PermissionConfig, permissionFromTools } from "./permission"

const PositiveInt = z.number().int().positive()

const fields = {
  name: z.string().optional(),
  model: z.string().optional(),
  variant: z.string().optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  prompt: z.string().optional(),
  description: z.string().optional(),
  mode: z.enum(["primary", "subagent", "all"]).optional(),
  hidden: z.boolean().optional(),
  hidden_from_cycle: z.boolean().optional(),
  color: z.string().optional(),
  steps: PositiveInt.optional(),
  /** @deprecated alias of `steps` */
  maxSteps: PositiveInt.optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  permission: PermissionConfig.optional(),
  /** @deprecated converted into `permission` */
  tools: z.record(z.string(), z.boolean()).optional(),
  disable: z.boolean().optional(),
}

const Known = z.object(fields)
type Normalized = Omit<z.output<typeof Known>, "maxSteps" | "tools">

/**
 * `agent.<name>` (and legacy `mode.<name>`), also the frontmatter of Markdown agents.
 * Normalised on parse: `maxSteps` → `steps`, `tools` → `permission` (explicit permission
 * entries win), and keys we do not know move into `options`, which reach the provider.
 */
export const AgentConfig = z.looseObject(fields).transform((input): Normalized => {
  const { maxSteps, tools, options, permission, steps, ...rest } = input
  const out: Record<string, unknown> = {}
  const extra: Record<string, unknown> = { ...options }
  for (const [key, value] of Object.entries(rest)) {
    if (Object.hasOwn(fields, key)) out[key] = value
    else extra[key] = value
  }
  const merged = { ...(tools ? permissionFromTools(tools) : {}), ...permission }
  if (Object.keys(extra).length > 0) out.options = extra
  if (Object.keys(merged).length > 0) out.permission = merged
  const resolvedSteps = steps ?? maxSteps
  if (resolvedSteps !== undefined) out.steps = resolvedSteps
  return out as Normalized
})
export type AgentConfig = z.infer<typeof AgentConfig>

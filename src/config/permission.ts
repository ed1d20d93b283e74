import { z } from "zod"

export const PermissionAction = z.enum(["ask", "allow", "deny"])
export type PermissionAction = z.infer<typeof PermissionAction>

/** One permission key: an action for every pattern, or `{pattern: action}` in rule order. */
export const PermissionRule = z.union([PermissionAction, z.record(z.string(), PermissionAction)])
export type PermissionRule = z.infer<typeof PermissionRule>

/**
 * `permission` as users write it: one action for everything, or `{key: rule}`. It is
 * normalised to the object form (`"ask"` → `{"*": "ask"}`) so files merge key by key.
 * Key order is kept: it is the rule order, and the last matching rule wins.
 */
export const PermissionConfig = z
  .union([PermissionAction, z.record(z.string(), PermissionRule)])
  .transform((value): Record<string, PermissionRule> => (typeof value === "string" ? { "*": value } : value))
export type PermissionConfig = z.infer<typeof PermissionConfig>

/** Legacy `tools: {name: bool}` as permission entries; write/edit/patch all mean `edit`. */
export function permissionFromTools(tools: Record<string, boolean>): Record<string, PermissionRule> {
  const result: Record<string, PermissionRule> = {}
  for (const [tool, enabled] of Object.entries(tools)) {
    const key = tool === "write" || tool === "patch" || tool === "multiedit" ? "edit" : tool
    result[key] = enabled ? "allow" : "deny"
  }
  return result
}

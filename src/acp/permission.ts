// A permission ask of the core, as the editor's `session/request_permission`: the call it is
// about (title, kind, files, the diff an edit would make) and three choices that map back to
// wright's replies once / always / reject.
import type { PermissionOption, RequestPermissionResponse, ToolCallUpdate, ToolKind } from "@agentclientprotocol/sdk/unstable"
import type { PermissionReply, PermissionRequest } from "../protocol"
import { editDiffs, patchLocations } from "./tool"

export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "once", kind: "allow_once", name: "Allow once" },
  { optionId: "always", kind: "allow_always", name: "Always allow" },
  { optionId: "reject", kind: "reject_once", name: "Reject" },
]

export function permissionToolCall(req: PermissionRequest, directory: string): ToolCallUpdate {
  const meta = req.metadata
  const file = typeof meta.filepath === "string" ? meta.filepath : undefined
  const locations = req.permission === "edit" || req.permission === "read" ? patchLocations(meta, directory) : []
  if (locations.length === 0 && file && !file.includes(", ")) locations.push({ path: file })
  const content = req.permission === "edit" ? editDiffs(meta, directory) : []
  return {
    toolCallId: req.tool?.callID ?? req.id,
    title: permissionTitle(req),
    kind: permissionKind(req.permission),
    status: "pending",
    ...(locations.length > 0 ? { locations } : {}),
    ...(content.length > 0 ? { content } : {}),
    rawInput: meta,
  }
}

/** What an ask is for, in ACP's kinds: a permission names an action (read, edit, bash…), not a tool. */
function permissionKind(permission: string): ToolKind {
  switch (permission) {
    case "read":
    case "edit":
      return permission
    case "bash":
      return "execute"
    case "glob":
    case "grep":
    case "list":
      return "search"
    case "webfetch":
    case "websearch":
      return "fetch"
    case "task":
    case "todowrite":
    case "todoread":
      return "think"
    default:
      return "other"
  }
}

function permissionTitle(req: PermissionRequest): string {
  const patterns = req.patterns.join(", ")
  switch (req.permission) {
    case "bash":
      return typeof req.metadata.command === "string" ? `Run ${req.metadata.command}` : `Run ${patterns}`
    case "edit":
      return `Edit ${patterns}`
    case "read":
      return `Read ${patterns}`
    case "external_directory":
      return `Access outside the project: ${patterns}`
    case "doom_loop":
      return `Repeat the same call again (${patterns})`
    default:
      return patterns ? `${req.permission}: ${patterns}` : req.permission
  }
}

/** The editor's answer as wright's reply; anything but a selected allow is a reject. */
export function replyOf(res: RequestPermissionResponse | undefined): PermissionReply {
  if (res?.outcome.outcome !== "selected") return "reject"
  const id = res.outcome.optionId
  return id === "once" || id === "always" ? id : "reject"
}

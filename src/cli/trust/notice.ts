import type { TrustStatus } from "../../protocol"
import { terminalSafe } from "../../util"
import { dim, yellow } from "../ui"

/** The one stderr line of `run`, `serve` and `acp` when a folder's config was held back; undefined when nothing was. */
export function trustNotice(trust: Pick<TrustStatus, "trusted" | "changed" | "ignored">): string | undefined {
  if (trust.trusted || trust.ignored.length === 0) return undefined
  const why = trust.changed ? "changed since you trusted it" : "not trusted"
  return `${yellow(`This folder's config is ${why}; ignored:`)} ${terminalSafe(trust.ignored.join("; "))}. ${dim("Trust it with `wright trust` (or --trust, WRIGHT_TRUST=1).")}\n`
}

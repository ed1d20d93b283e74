import { z } from "zod"

/**
 * `sandbox`: wright's own key (OpenCode has none). How commands (bash, `!cmd`, command
 * templates, MCP servers with `sandbox: true`) are confined on Linux with bubblewrap.
 */
export const SandboxConfig = z.object({
  /** "workspace-write" (default): the project and a temp dir are writable; "read-only": only the temp dir; "off": no sandbox. */
  mode: z.enum(["workspace-write", "read-only", "off"]).optional(),
  /** false: commands get no network at all (default true). */
  network: z.boolean().optional(),
  /** Extra writable paths (absolute, `~/…`, or relative to the project). */
  writable: z.array(z.string()).optional(),
  /** true: refuse to run commands when the sandbox cannot work here, instead of a notice. */
  required: z.boolean().optional(),
  /**
   * Variables commands still get although they look like secrets (keys, tokens, passwords are
   * scrubbed). Honoured only from the user's global config, never from a project's.
   */
  env: z.array(z.string()).optional(),
})
export type SandboxConfig = z.infer<typeof SandboxConfig>

// How language servers and formatters run for a project. They load the project's code (a
// workspace TypeScript, a formatter's JavaScript config), so in an untrusted folder they run
// only inside the App's sandbox, without network, and not at all when the sandbox is off or
// unavailable. In a trusted folder they run as the user's own tools.
import path from "node:path"
import { toolSandbox, type Exec, type Sandbox } from "../process"
import { findBinary, installRoots } from "./servers"

export interface Isolation {
  /** Starts a language server (read-only worktree inside the sandbox). */
  lspExec: Exec
  /** Starts a formatter (it rewrites the file: the worktree stays writable). */
  formatExec: Exec
  sandboxed: boolean
  /** Why nothing may run; undefined: they may. */
  refuse?: string
  /** What the model and user are told once, with the first file a server or formatter would see. */
  notice?: string
  /** Makes a directory readable to the tools when the sandbox restricts reads. */
  allowRead(dir: string): void
}

export function isolate(opts: { exec: Exec; trusted: boolean; sandbox?: Sandbox; cacheDir?: string; env: NodeJS.ProcessEnv }): Isolation {
  const { exec } = opts
  if (opts.trusted) return { lspExec: exec, formatExec: exec, sandboxed: false, allowRead() {} }
  const box = opts.sandbox
  if (!box || box.state !== "on") {
    const why = box?.state === "unavailable" ? `the sandbox is unavailable (${box.reason})` : "the sandbox is off"
    return {
      lspExec: exec,
      formatExec: exec,
      sandboxed: false,
      refuse: `not started: this folder is not trusted and ${why}`,
      notice: `Language servers and formatters do not run: this folder is not trusted and ${why}, and they would load the project's code (its TypeScript, a formatter's config) outside it. No diagnostics or formatting here; \`wright trust\` turns them on.`,
      allowRead() {},
    }
  }
  // With `external_directory: deny` the sandbox hides what lies outside the project: the tool's
  // own install, Node and wright's cache must stay readable.
  const readable = new Set<string>()
  if (opts.cacheDir) readable.add(path.join(opts.cacheDir, "lsp"))
  const node = findBinary("node", { root: "/", top: "/", pathEnv: opts.env.PATH, local: false })
  // Node's prefix (/usr, ~/.nvm/versions/node/vX): the servers' `#!/usr/bin/env node` runs it.
  if (node) for (const bin of installRoots(node)) readable.add(path.dirname(bin))
  const wrap =
    (write: boolean): Exec =>
    (argv, o) =>
      exec(argv, { ...o, sandbox: toolSandbox(box, { write, readable: [...readable, ...(path.isAbsolute(argv[0]!) ? installRoots(argv[0]!) : [])] }) })
  return {
    lspExec: wrap(false),
    formatExec: wrap(true),
    sandboxed: true,
    notice: "Language servers and formatters run in wright's sandbox without network in this folder, because it is not trusted: they load the project's code (its TypeScript, a formatter's config). `wright trust` runs them as your own tools.",
    allowRead: (dir) => void readable.add(dir),
  }
}

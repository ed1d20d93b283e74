// The tree-sitter bash parser, loaded on the first analysis only: the wasm runtime and
// grammar cost ~100 ms and keep a short-lived process alive while V8 compiles them.
// They compile with V8's baseline wasm compiler only (Liftoff): the optimising one spent
// ~1.4 s of a background thread on the 1.4 MB grammar, and whenever the event loop ran dry
// meanwhile (a command's child exited, nothing else pending) Node blocked on that work before
// going on, so the first bash step of a run took 1.5 s instead of 0.15 s. A command line is
// parsed in microseconds either way.
// Both packages stay in node_modules (external to our bundle), so createRequire finds
// their .wasm files from the source tree and from dist alike.
import { createRequire } from "node:module"
import type { Node, Parser, Tree } from "web-tree-sitter"
import { holdBaselineWasm } from "../util"

export type { Node, Tree }

let loading: Promise<Parser> | undefined

export function bashParser(): Promise<Parser> {
  loading ??= load().catch((e: unknown) => {
    loading = undefined
    throw new Error(`Could not load the bash parser (web-tree-sitter + tree-sitter-bash): ${e instanceof Error ? e.message : String(e)}`, { cause: e })
  })
  return loading
}

async function load(): Promise<Parser> {
  const require = createRequire(import.meta.url)
  const runtimeWasm = require.resolve("web-tree-sitter/tree-sitter.wasm")
  const grammarWasm = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")
  const { Parser, Language } = await import("web-tree-sitter")
  // V8 reads the flag as a module compiles, so only wasm compiled during these few
  // milliseconds gets it (unless the process holds it longer, as `run` does).
  const release = holdBaselineWasm()
  let bash
  try {
    await Parser.init({ locateFile: () => runtimeWasm })
    bash = await Language.load(grammarWasm)
  } finally {
    release()
  }
  const parser = new Parser()
  parser.setLanguage(bash)
  return parser
}

// The tree-sitter bash parser, loaded on the first analysis only: the wasm runtime and
// grammar cost ~100 ms and keep a short-lived process alive while V8 compiles them.
// Both packages stay in node_modules (external to our bundle), so createRequire finds
// their .wasm files from the source tree and from dist alike.
import { createRequire } from "node:module"
import type { Node, Parser, Tree } from "web-tree-sitter"

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
  await Parser.init({ locateFile: () => runtimeWasm })
  const bash = await Language.load(grammarWasm)
  const parser = new Parser()
  parser.setLanguage(bash)
  return parser
}

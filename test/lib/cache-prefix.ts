// Anthropic prompt caching, measured on recorded request bodies. Anthropic caches the prompt in
// the order tools → system → messages, block by block, up to each `cache_control` breakpoint,
// and a later request reads the cache when its blocks up to there are byte-identical (the
// `cache_control` markers themselves are not part of what is compared). A write is found again
// only from a breakpoint at most 20 blocks after it.
// Used by test/session/cache-prefix.test.ts and bench/cache/prefix.ts.
import { execFileSync } from "node:child_process"
import { prompt, testCore } from "./core"
import { text, toolCall, type LLMServer } from "./llm-server"

/** Anthropic looks back at most this many blocks from a breakpoint for an earlier cache entry. */
export const LOOKBACK_BLOCKS = 20

export interface PrefixStep {
  /** 1-based request number. */
  step: number
  blocks: number
  bytes: number
  /** Block indexes that carry a `cache_control`. */
  breakpoints: number[]
  /** Bytes up to and including this request's last breakpoint: what it writes to the cache. */
  cacheableBytes: number
  /** The previous request's cacheable span is byte-identical here (always true for the first). */
  samePrefix: boolean
  /** The first block index where this request and the previous one differ within that span (-1: none). */
  firstDifference: number
  /** Some breakpoint of this request is within LOOKBACK_BLOCKS blocks after the previous request's last one. */
  reachable: boolean
  /** Share of this request's bytes the previous request's cache covers (0 for the first). */
  cachedShare: number
}

interface Block {
  kind: string
  text: string
  marked: boolean
}

/** The blocks of one Anthropic Messages body, in caching order, each serialised without its marker. */
export function blocksOf(body: any): Block[] {
  const out: Block[] = []
  const add = (kind: string, value: any) => {
    const { cache_control, ...rest } = value ?? {}
    out.push({ kind, text: JSON.stringify(rest), marked: cache_control !== undefined })
  }
  for (const t of body.tools ?? []) add("tool", t)
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? [])
  for (const s of system) add("system", s)
  for (const m of body.messages ?? []) {
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content
    // The role is part of what is cached: a block moved to another turn is a different prompt.
    for (const c of content) add(m.role, c)
  }
  return out
}

/** Settings outside the blocks that also key the cache: a change there misses it. */
function settings(body: any): string {
  return JSON.stringify({ model: body.model, tool_choice: body.tool_choice, thinking: body.thinking })
}

export function prefixReport(bodies: any[]): PrefixStep[] {
  const out: PrefixStep[] = []
  let previous: { blocks: Block[]; last: number; settings: string; cacheable: number } | undefined
  bodies.forEach((body, i) => {
    const blocks = blocksOf(body)
    const sizes = blocks.map((b) => Buffer.byteLength(b.text) + b.kind.length)
    const bytes = sizes.reduce((a, b) => a + b, 0)
    const breakpoints = blocks.flatMap((b, k) => (b.marked ? [k] : []))
    const last = breakpoints.at(-1) ?? -1
    const cacheableBytes = sizes.slice(0, last + 1).reduce((a, b) => a + b, 0)
    let samePrefix = true
    let firstDifference = -1
    let reachable = true
    let cachedShare = 0
    if (previous) {
      if (previous.settings !== settings(body)) firstDifference = 0
      for (let k = 0; firstDifference === -1 && k <= previous.last; k++) {
        const a = previous.blocks[k]
        const b = blocks[k]
        if (!b || a!.kind !== b.kind || a!.text !== b.text) firstDifference = k
      }
      samePrefix = firstDifference === -1
      reachable = breakpoints.some((k) => k >= previous!.last && k - previous!.last <= LOOKBACK_BLOCKS)
      cachedShare = samePrefix && reachable ? previous.cacheable / bytes : 0
    }
    out.push({ step: i + 1, blocks: blocks.length, bytes, breakpoints, cacheableBytes, samePrefix, firstDifference, reachable, cachedShare })
    previous = { blocks, last, settings: settings(body), cacheable: cacheableBytes }
  })
  return out
}

/**
 * A 30-step session on the Anthropic wire: three prompts, each answered by nine tool steps
 * (read, glob, grep and one write on a small git project, some with thinking) and a final text.
 * Returns the body of every model request, in order.
 */
export async function scriptedPrefixSession(llm: LLMServer, opts: { turns?: number; toolSteps?: number; git?: boolean } = {}): Promise<any[]> {
  const turns = opts.turns ?? 3
  const toolSteps = opts.toolSteps ?? 9
  const files: Record<string, string> = {}
  for (let f = 0; f < 6; f++) files[`src/mod${f}.ts`] = `export function mod${f}(x: number) {\n  return x * ${f + 1}\n}\n`.repeat(8)
  const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, stdio: "ignore" })
  const prepare = (dir: string) => {
    git(dir, "init", "-q")
    git(dir, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    git(dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
  }
  const core = await testCore({ llm, protocol: "anthropic", files, ...(opts.git === false ? {} : { prepare }) })
  const first = llm.requests.length
  try {
    const session = await core.client.session.create()
    for (let t = 0; t < turns; t++) {
      const replies = []
      for (let s = 0; s < toolSteps; s++) {
        const n = t * toolSteps + s
        // Each turn writes a file once, so a git repo's status changes between turns.
        const call =
          s === 4
            ? toolCall("write", { filePath: `notes/turn${t + 1}.md`, content: `Notes of turn ${t + 1}\n` })
            : n % 4 === 0
            ? toolCall("read", { filePath: `src/mod${n % 6}.ts` })
            : n % 4 === 1
              ? toolCall("glob", { pattern: "src/*.ts" })
              : n % 4 === 2
                ? toolCall("grep", { pattern: `mod${n % 6}` })
                : toolCall("read", { filePath: `src/mod${(n + 3) % 6}.ts`, offset: 1, limit: 4 })
        replies.push({ ...call, ...(n % 3 === 0 ? { reasoning: `Step ${n}: looking at the next file.` } : {}), usage: { input: 2_000 + n * 150, output: 40 } })
      }
      replies.push(text(`Turn ${t + 1} done: the modules multiply.`, { usage: { input: 2_000, output: 20 } }))
      llm.script(...replies)
      await core.client.session.prompt(session.id, prompt(`Turn ${t + 1}: look through src/ and tell me what the modules do.`))
    }
    return llm.requests.slice(first).map((r) => r.body)
  } finally {
    await core.close()
  }
}

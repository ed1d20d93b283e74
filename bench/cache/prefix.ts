// How much of each request Anthropic can serve from its prompt cache: a 30-step scripted
// session (three prompts of nine tool steps and an answer, one write per turn in a git
// project) through the real core and @ai-sdk/anthropic, measured on the recorded request
// bodies (see test/lib/cache-prefix.ts for the rules). Prints, from step 3 on, the median and
// lowest share of input bytes covered by the previous request's cached prefix, and the input
// price relative to no caching at Anthropic's rates (cache write 1.25×, read 0.1×); the
// baseline is the same session with every breakpoint ignored (price 1×).
// Run: npx tsx bench/cache/prefix.ts
import { register } from "node:module"
import { pathToFileURL } from "node:url"

register("../grep/txt-loader.mjs", import.meta.url)
const { prefixReport, scriptedPrefixSession } = await import("../../test/lib/cache-prefix")
const { startLLMServer } = await import("../../test/lib/llm-server")

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

export async function runPrefixBench() {
  const llm = await startLLMServer()
  try {
    const report = prefixReport(await scriptedPrefixSession(llm))
    const later = report.slice(2)
    // Per request: bytes read from cache at 0.1×, bytes written past the read at 1.25×, the rest (none here) at 1×.
    let priced = 0
    let plain = 0
    for (const s of report) {
      const read = s.cachedShare * s.bytes
      const written = Math.max(0, s.cacheableBytes - read)
      priced += read * 0.1 + written * 1.25 + (s.bytes - read - written)
      plain += s.bytes
    }
    return {
      steps: report.length,
      allPrefixesStable: report.every((s) => s.samePrefix && s.reachable),
      medianCachedShareFromStep3: median(later.map((s) => s.cachedShare)),
      minCachedShareFromStep3: Math.min(...later.map((s) => s.cachedShare)),
      maxBreakpoints: Math.max(...report.map((s) => s.breakpoints.length)),
      inputPriceVsUncached: priced / plain,
      lastRequestBytes: report.at(-1)!.bytes,
    }
  } finally {
    await llm.close()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(await runPrefixBench(), null, 2))
  process.exit(0)
}

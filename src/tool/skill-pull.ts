// `skills.urls`: each URL serves `index.json` ({ skills: [{ name, files: [...] }] }, OpenCode's
// format) and the files at `<url>/<name>/<file>`. They are fetched once into wright's cache
// (`<cache>/skills/<hash of the url>/<name>/`) and read from there on later starts; an entry's
// `version` changing makes its files be fetched again. Only the
// user's config (or a trusted project's) can name a URL: config/trust.ts drops a project's.
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"

const MAX_BYTES = 1024 * 1024

/** Pulls each URL's skills into the cache; returns the skill folders and one warning per failure. */
export async function pullSkills(urls: string[], cacheDir: string, fetchFn: typeof fetch = fetch): Promise<{ dirs: string[]; warnings: string[] }> {
  const dirs: string[] = []
  const warnings: string[] = []
  for (const url of urls) {
    try {
      dirs.push(...(await pullOne(url, cacheDir, fetchFn, warnings)))
    } catch (error) {
      warnings.push(`skills.urls: ${url}: ${(error as Error).message}`)
    }
  }
  return { dirs, warnings }
}

async function pullOne(url: string, cacheDir: string, fetchFn: typeof fetch, warnings: string[]): Promise<string[]> {
  const base = new URL(url.endsWith("/") ? url : `${url}/`)
  if (base.protocol !== "https:" && base.protocol !== "http:") throw new Error("not an http(s) URL")
  const root = path.join(cacheDir, "skills", createHash("sha256").update(base.href).digest("hex").slice(0, 16))
  const index = JSON.parse(new TextDecoder().decode(await get(new URL("index.json", base), fetchFn))) as unknown
  const skills = (index as { skills?: unknown })?.skills
  if (!Array.isArray(skills)) throw new Error('index.json has no "skills" list')
  const out: string[] = []
  for (const entry of skills as { name?: unknown; files?: unknown; version?: unknown }[]) {
    const name = entry?.name
    const files = entry?.files
    if (typeof name !== "string" || !safeSegment(name) || !Array.isArray(files) || !files.every((f) => typeof f === "string" && safeRelative(f))) {
      warnings.push(`skills.urls: ${url}: entry ${JSON.stringify(name)} skipped (bad name or file path)`)
      continue
    }
    if (!files.includes("SKILL.md")) {
      warnings.push(`skills.urls: ${url}: skill "${name}" has no SKILL.md`)
      continue
    }
    const dir = path.join(root, name)
    const versionFile = path.join(`${root}.versions`, name)
    const version = typeof entry.version === "string" ? entry.version : undefined
    if (version !== undefined && readOr(versionFile) !== version) rmSync(dir, { recursive: true, force: true })
    const skillBase = new URL(`${encodeURIComponent(name)}/`, base)
    for (const file of files as string[]) {
      const dest = path.join(dir, ...file.split("/"))
      if (existsSync(dest)) continue
      const source = new URL(file, skillBase)
      if (source.origin !== base.origin) throw new Error(`${file} leaves ${base.origin}`)
      const body = await get(source, fetchFn)
      mkdirSync(path.dirname(dest), { recursive: true })
      writeFileSync(dest, body)
    }
    if (version !== undefined) {
      mkdirSync(path.dirname(versionFile), { recursive: true })
      writeFileSync(versionFile, version)
    }
    out.push(dir)
  }
  return out
}

async function get(url: URL, fetchFn: typeof fetch): Promise<Uint8Array> {
  const res = await fetchFn(url, { redirect: "error", signal: AbortSignal.timeout(15_000) })
  if (!res.ok) throw new Error(`${url.href}: HTTP ${res.status}`)
  const body = new Uint8Array(await res.arrayBuffer())
  if (body.byteLength > MAX_BYTES) throw new Error(`${url.href}: larger than ${MAX_BYTES} bytes`)
  return body
}

function readOr(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

function safeSegment(s: string): boolean {
  return s !== "" && s !== "." && s !== ".." && !/[\\/\0]/.test(s)
}

/** A plain relative path: no scheme, no `..`, no absolute path, no query or fragment. */
function safeRelative(p: string): boolean {
  if (p === "" || /[\\\0?#:]/.test(p) || p.startsWith("/")) return false
  return p.split("/").every((seg) => {
    try {
      return safeSegment(decodeURIComponent(seg))
    } catch {
      return false
    }
  })
}

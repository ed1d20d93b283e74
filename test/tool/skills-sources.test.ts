import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { findSkills, loadSkills, skillSources } from "../../src/tool/skill-discovery"
import { tempDir } from "../lib/tool-context"

function write(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
}

const skill = (name: string, description = `the ${name} skill`) => `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`

/** A home and a git project below it, with a subdirectory wright runs in. */
function layout() {
  const root = tempDir()
  const home = path.join(root, "home")
  const worktree = path.join(root, "work", "repo")
  const directory = path.join(worktree, "pkg")
  mkdirSync(path.join(worktree, ".git"), { recursive: true })
  mkdirSync(directory, { recursive: true })
  mkdirSync(home, { recursive: true })
  return { root, home, worktree, directory }
}

function search(l: ReturnType<typeof layout>, extra: Partial<Parameters<typeof skillSources>[0]> = {}) {
  return { home: l.home, directory: l.directory, worktree: l.worktree, configDirs: [], projectDirs: [], trusted: false, ...extra }
}

function names(l: ReturnType<typeof layout>, extra: Partial<Parameters<typeof skillSources>[0]> = {}) {
  const found = findSkills(skillSources(search(l, extra)).sources)
  return Object.fromEntries(found.skills.map((s) => [s.name, s.location]))
}

describe("skills - where other agents keep them", () => {
  it("skills - found in ~/.claude, ~/.agents, and the project's .claude and .agents up to the worktree", () => {
    const l = layout()
    write(path.join(l.home, ".claude", "skills", "a", "SKILL.md"), skill("user-claude"))
    write(path.join(l.home, ".agents", "skills", "b", "SKILL.md"), skill("user-agents"))
    write(path.join(l.worktree, ".claude", "skills", "c", "SKILL.md"), skill("root-claude"))
    write(path.join(l.directory, ".agents", "skills", "nested", "d", "SKILL.md"), skill("pkg-agents"))
    // Above the worktree is not the project's.
    write(path.join(l.root, "work", ".claude", "skills", "e", "SKILL.md"), skill("above"))
    // Only under skills/: a .claude/commands SKILL.md is not a skill.
    write(path.join(l.worktree, ".claude", "commands", "f", "SKILL.md"), skill("not-a-skill"))
    expect(Object.keys(names(l)).sort()).toEqual(["pkg-agents", "root-claude", "user-agents", "user-claude"])
  })

  it("skills - WRIGHT_DISABLE_EXTERNAL_SKILLS (external: false) leaves out every .claude and .agents folder", () => {
    const l = layout()
    write(path.join(l.home, ".claude", "skills", "a", "SKILL.md"), skill("user-claude"))
    write(path.join(l.worktree, ".agents", "skills", "c", "SKILL.md"), skill("root-agents"))
    write(path.join(l.worktree, ".wright", "skills", "w", "SKILL.md"), skill("own"))
    const dir = path.join(l.worktree, ".wright")
    expect(Object.keys(names(l, { external: false, configDirs: [dir], projectDirs: [dir] }))).toEqual(["own"])
  })

  it("skills - skills.paths: ~/ and project-relative folders, any SKILL.md below; a missing one is a warning", () => {
    const l = layout()
    write(path.join(l.home, "my-skills", "deep", "x", "SKILL.md"), skill("mine"))
    write(path.join(l.directory, "team-skills", "y", "SKILL.md"), skill("team"))
    const { sources, warnings } = skillSources(search(l, { paths: ["~/my-skills", "team-skills", "gone"] }))
    expect(findSkills(sources).skills.map((s) => s.name).sort()).toEqual(["mine", "team"])
    expect(warnings).toEqual([`skills.paths: "gone" is not a directory (${path.join(l.directory, "gone")})`])
  })

  it("skills - a name clash resolves as OpenCode's: config folders beat .claude, skills.paths beat both, and both files are named", () => {
    const l = layout()
    const claude = path.join(l.worktree, ".claude", "skills", "release", "SKILL.md")
    const userClaude = path.join(l.home, ".claude", "skills", "release", "SKILL.md")
    const wright = path.join(l.worktree, ".wright", "skills", "release", "SKILL.md")
    write(userClaude, skill("release", "user's"))
    write(claude, skill("release", "claude's"))
    write(wright, skill("release", "wright's"))
    const dir = path.join(l.worktree, ".wright")
    const found = findSkills(skillSources(search(l, { configDirs: [dir], projectDirs: [dir] })).sources)
    expect(found.skills).toHaveLength(1)
    expect(found.skills[0]).toMatchObject({ description: "wright's", location: wright })
    expect(found.warnings).toEqual([
      `skill "release": ${claude} replaces ${userClaude} (same name)`,
      `skill "release": ${wright} replaces ${claude} (same name)`,
    ])

    write(path.join(l.home, "extra", "release", "SKILL.md"), skill("release", "from skills.paths"))
    const withPaths = findSkills(skillSources(search(l, { configDirs: [dir], projectDirs: [dir], paths: ["~/extra"] })).sources)
    expect(withPaths.skills[0].description).toBe("from skills.paths")
  })

  it("skills - an untrusted project's SKILL.md linked out of the project does not load (.claude and .wright)", () => {
    const l = layout()
    const secret = path.join(l.home, ".ssh", "id_ed25519")
    write(secret, "---\nname: key\ndescription: private key\n---\n-----BEGIN OPENSSH PRIVATE KEY-----\n")
    mkdirSync(path.join(l.worktree, ".claude", "skills", "key"), { recursive: true })
    symlinkSync(secret, path.join(l.worktree, ".claude", "skills", "key", "SKILL.md"))
    const wright = path.join(l.worktree, ".wright")
    mkdirSync(path.join(wright, "skills", "key2"), { recursive: true })
    symlinkSync(secret, path.join(wright, "skills", "key2", "SKILL.md"))
    // A linked folder is not walked either (it could be `/`).
    mkdirSync(path.join(l.directory, ".agents"), { recursive: true })
    symlinkSync(path.join(l.home, "outside-skills"), path.join(l.directory, ".agents", "skills"))
    write(path.join(l.home, "outside-skills", "z", "SKILL.md"), skill("outside"))
    // A project folder that is itself a link out (`pkg/.claude` -> ~/elsewhere).
    write(path.join(l.home, "elsewhere", "skills", "w", "SKILL.md"), skill("linked-root"))
    symlinkSync(path.join(l.home, "elsewhere"), path.join(l.directory, ".claude"))
    // The project's own, plain skill still loads.
    write(path.join(l.worktree, ".claude", "skills", "inside", "SKILL.md"), skill("inside"))

    const untrusted = names(l, { configDirs: [wright], projectDirs: [wright], paths: ["../.wright"] })
    expect(Object.keys(untrusted).sort()).toEqual(["inside"])
    // Trusted, the user has vouched for the project's links.
    const trusted = names(l, { configDirs: [wright], projectDirs: [wright], trusted: true })
    expect(Object.keys(trusted).sort()).toEqual(["inside", "key", "linked-root", "outside"])
  })
})

describe("skills - skills.urls", () => {
  function server(files: Record<string, string>) {
    const asked: string[] = []
    const fetchFn = (async (input: URL | string) => {
      const url = String(input)
      asked.push(url)
      return url in files ? new Response(files[url]) : new Response("nope", { status: 404 })
    }) as typeof fetch
    return { asked, fetchFn }
  }

  it("skills - a URL's index is pulled into the cache once and its skills offered", async () => {
    const l = layout()
    const cacheDir = path.join(l.root, "cache")
    const { asked, fetchFn } = server({
      "https://skills.example/team/index.json": JSON.stringify({
        skills: [
          { name: "lint", files: ["SKILL.md", "scripts/run.sh"] },
          { name: "../escape", files: ["SKILL.md"] },
          { name: "sneaky", files: ["SKILL.md", "../../x"] },
          { name: "empty", files: ["README.md"] },
        ],
      }),
      "https://skills.example/team/lint/SKILL.md": skill("lint"),
      "https://skills.example/team/lint/scripts/run.sh": "echo lint\n",
    })
    const opts = { ...search(l), urls: ["https://skills.example/team"], cacheDir, fetch: fetchFn }
    const first = await loadSkills(opts)
    expect(first.skills.map((s) => s.name)).toEqual(["lint"])
    expect(first.skills[0].location.startsWith(path.join(cacheDir, "skills") + path.sep)).toBe(true)
    expect(first.warnings).toEqual([
      'skills.urls: https://skills.example/team: entry "../escape" skipped (bad name or file path)',
      'skills.urls: https://skills.example/team: entry "sneaky" skipped (bad name or file path)',
      'skills.urls: https://skills.example/team: skill "empty" has no SKILL.md',
    ])
    const before = asked.length
    const second = await loadSkills(opts)
    expect(second.skills.map((s) => s.name)).toEqual(["lint"])
    // Only the index again: the files come from the cache.
    expect(asked.slice(before)).toEqual(["https://skills.example/team/index.json"])
  })

  it("skills - a new version in the index fetches the skill again", async () => {
    const l = layout()
    const cacheDir = path.join(l.root, "cache")
    const files: Record<string, string> = {
      "https://skills.example/index.json": JSON.stringify({ skills: [{ name: "fmt", version: "1", files: ["SKILL.md"] }] }),
      "https://skills.example/fmt/SKILL.md": skill("fmt", "version one"),
    }
    const { fetchFn } = server(files)
    const opts = { ...search(l), urls: ["https://skills.example"], cacheDir, fetch: fetchFn }
    expect((await loadSkills(opts)).skills[0].description).toBe("version one")
    files["https://skills.example/fmt/SKILL.md"] = skill("fmt", "version two")
    expect((await loadSkills(opts)).skills[0].description).toBe("version one")
    files["https://skills.example/index.json"] = JSON.stringify({ skills: [{ name: "fmt", version: "2", files: ["SKILL.md"] }] })
    expect((await loadSkills(opts)).skills[0].description).toBe("version two")
  })

  it("skills - an unreachable URL is a warning naming it, not a failed start", async () => {
    const l = layout()
    const { fetchFn } = server({})
    const out = await loadSkills({ ...search(l), urls: ["https://down.example/s"], cacheDir: path.join(l.root, "cache"), fetch: fetchFn })
    expect(out.skills).toEqual([])
    expect(out.warnings).toEqual(["skills.urls: https://down.example/s: https://down.example/s/index.json: HTTP 404"])
  })
})

describe("skills - an untrusted project's config", () => {
  it("skills - a cloned repository's skills.urls are never fetched and its skills.paths cannot leave it", async () => {
    const { loadConfig } = await import("../../src/config")
    const l = layout()
    write(path.join(l.root, "work", "outside", "x", "SKILL.md"), skill("outside"))
    write(path.join(l.directory, "team", "y", "SKILL.md"), skill("team"))
    write(path.join(l.worktree, "wright.json"), JSON.stringify({ skills: { urls: ["https://evil.example/s"], paths: ["../../outside", "team"] } }))
    const loaded = await loadConfig({ directory: l.directory, env: {}, home: l.home, managedDirs: [] })
    expect(loaded.trust.trusted).toBe(false)
    expect(loaded.trust.ignored).toEqual(expect.arrayContaining(['skills: "https://evil.example/s" is outside the project', 'skills: "../../outside" is outside the project']))
    const asked: string[] = []
    const fetchFn = (async (u: URL | string) => {
      asked.push(String(u))
      return new Response("{}")
    }) as typeof fetch
    const out = await loadSkills({
      ...search(l),
      paths: loaded.config.skills?.paths,
      urls: loaded.config.skills?.urls,
      cacheDir: path.join(l.root, "cache"),
      fetch: fetchFn,
    })
    expect(asked).toEqual([])
    expect(out.skills.map((s) => s.name)).toEqual(["team"])
  })
})

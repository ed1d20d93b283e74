// Finds skills: `SKILL.md` files under `<dir>/skill/**` or `<dir>/skills/**` of each config
// directory the caller passes (project `.wright`, `.opencode`, `~/.config/wright`, …). The
// frontmatter gives `name` (falling back to the folder name) and `description`.
import { readFileSync } from "node:fs"
import path from "node:path"
import { parseFrontmatter } from "../util"
import { globSync } from "tinyglobby"

export interface SkillInfo {
  name: string
  description: string
  /** Absolute path of the SKILL.md file. */
  location: string
  /** The Markdown body, without the frontmatter. */
  content: string
}

/** Skills in the given directories; when two share a name, the one from the earlier directory wins. */
export function discoverSkills(dirs: string[]): SkillInfo[] {
  const byName = new Map<string, SkillInfo>()
  for (const dir of dirs) {
    const files = globSync(["{skill,skills}/**/SKILL.md"], {
      cwd: dir,
      absolute: true,
      dot: true,
      ignore: ["**/node_modules/**", "**/.git/**"],
    }).sort()
    for (const file of files) {
      const skill = readSkill(file)
      if (skill && !byName.has(skill.name)) byName.set(skill.name, skill)
    }
  }
  return [...byName.values()]
}

function readSkill(location: string): SkillInfo | undefined {
  let text: string
  try {
    text = readFileSync(location, "utf8")
  } catch {
    return undefined
  }
  let parsed: { data: Record<string, unknown>; body: string }
  try {
    parsed = parseFrontmatter(text, location)
  } catch {
    // A skill whose frontmatter is not valid YAML is left out rather than breaking the tool.
    return undefined
  }
  const { data, body } = parsed
  const str = (v: unknown) => (typeof v === "string" ? v.trim() : "")
  const name = str(data.name) || path.basename(path.dirname(location))
  return { name, description: str(data.description), location: path.resolve(location), content: body }
}


// Finds skills: `SKILL.md` files under `<dir>/skill/**` or `<dir>/skills/**` of each config
// directory the caller passes (project `.wright`, `.opencode`, `~/.config/wright`, …). The
// frontmatter gives `name` (falling back to the folder name) and `description`.
import { readFileSync } from "node:fs"
import path from "node:path"
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
  const { data, body } = parseFrontmatter(text)
  const name = data.name?.trim() || path.basename(path.dirname(location))
  return { name, description: data.description?.trim() ?? "", location: path.resolve(location), content: body }
}

/**
 * A small reader for the YAML subset skills use: `key: value` pairs, quoted values, and
 * block (`|`, `>`) or indented continuation lines. Anything else is ignored.
 */
export function parseFrontmatter(text: string): { data: Record<string, string>; body: string } {
  const match = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (!match) return { data: {}, body: text }
  const data: Record<string, string> = {}
  const lines = match[1]!.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(lines[i]!)
    if (!pair) continue
    let value = pair[2]!.trim()
    const continued: string[] = []
    while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]!) || (lines[i + 1]!.trim() === "" && value.startsWith("|")))) {
      continued.push(lines[++i]!.trim())
    }
    if (/^[|>][+-]?$/.test(value)) value = continued.join(value.startsWith("|") ? "\n" : " ")
    else if (continued.length) value = [value, ...continued].join(" ")
    data[pair[1]!] = unquote(value.trim())
  }
  return { data, body: text.slice(match[0].length) }
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string
    } catch {
      return value.slice(1, -1)
    }
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'")
  return value
}

import path from "node:path"
import { globSync } from "tinyglobby"
import { z } from "zod"
import type { SkillInfo } from "./skill-discovery"
import DESCRIPTION from "./skill.txt"
import { projectPath, textOf } from "./summary"
import { defineTool, type Tool } from "./tool"

const SAMPLED_FILES = 10

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
}

function describe(skills: SkillInfo[]): string {
  if (skills.length === 0) return `${DESCRIPTION.trim()}\n\nNo skills are available.`
  const entries = skills.map(
    (s) => `  <skill>\n    <name>${escapeXml(s.name)}</name>\n    <description>${escapeXml(s.description)}</description>\n  </skill>`,
  )
  return `${DESCRIPTION.trim()}\n\n<available_skills>\n${entries.join("\n")}\n</available_skills>`
}

/** Other files of the skill (scripts, references) the model may want, as absolute paths. */
function sampleFiles(dir: string): string[] {
  // Links are not followed: one pointing at `/` would walk the whole disk for a ten-line hint.
  return globSync(["**/*"], { cwd: dir, absolute: true, dot: true, onlyFiles: true, followSymbolicLinks: false, ignore: ["**/node_modules/**", "**/.git/**"] })
    .filter((file) => path.basename(file) !== "SKILL.md")
    .sort()
    .slice(0, SAMPLED_FILES)
}

/** The skill tool over the skills found at startup; its description lists them. */
export function createSkillTool(skills: SkillInfo[]): Tool {
  const byName = new Map(skills.map((s) => [s.name, s]))
  return defineTool({
    id: "skill",
    description: describe(skills),
    parameters: z.object({ name: z.string().describe("The name of the skill, from available_skills") }),
    summary(input, _state, project) {
      const name = textOf(input.name)
      const skill = name ? byName.get(name) : undefined
      return {
        title: name ? `Load skill ${name}` : "Load skill",
        kind: "read",
        locations: skill ? [{ path: projectPath(skill.location, project) }] : [],
      }
    },
    async execute(args, ctx) {
      const skill = byName.get(args.name)
      if (!skill) {
        const names = [...byName.keys()].join(", ") || "none"
        throw new Error(`Skill "${args.name}" not found. Available skills: ${names}`)
      }
      await ctx.ask({ permission: "skill", patterns: [skill.name], always: [skill.name], metadata: {} })

      const dir = path.dirname(skill.location)
      const files = sampleFiles(dir).map((f) => `<file>${f}</file>`)
      const output = [
        `<skill_content name="${escapeXml(skill.name)}">`,
        `# Skill: ${skill.name}`,
        "",
        skill.content.trim(),
        "",
        `Base directory: ${dir}`,
        "<skill_files>",
        ...files,
        "</skill_files>",
        "</skill_content>",
      ].join("\n")
      return { title: `Loaded skill: ${skill.name}`, output, metadata: { name: skill.name, dir } }
    },
  })
}

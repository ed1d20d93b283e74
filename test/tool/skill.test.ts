import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { runTool } from "../../src/tool"
import { createSkillTool } from "../../src/tool/skill"
import { discoverSkills } from "../../src/tool/skill-discovery"
import { tempDir, toolContext } from "../lib/tool-context"

function write(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
}

function tree() {
  const project = tempDir()
  const home = tempDir()
  const wright = path.join(project, ".wright")
  const opencode = path.join(project, ".opencode")
  const global = path.join(home, ".config", "wright")
  write(
    path.join(wright, "skill", "release", "SKILL.md"),
    "---\nname: release\ndescription: Cut a release. Use when the user asks to publish.\n---\n\n# Releasing\n\nRun scripts/bump.sh first.\n",
  )
  write(path.join(wright, "skill", "release", "scripts", "bump.sh"), "echo bump\n")
  write(path.join(wright, "skill", "release", "reference", "notes.md"), "notes\n")
  write(path.join(opencode, "skills", "group", "pdf-tools", "SKILL.md"), "---\ndescription: >\n  Work with PDF files:\n  split, merge.\n---\nUse qpdf.\n")
  write(path.join(global, "skill", "release", "SKILL.md"), "---\nname: release\ndescription: the global one\n---\nglobal\n")
  write(path.join(global, "skills", "deploy", "SKILL.md"), '---\nname: "deploy"\ndescription: "Deploy: to prod"\n---\nDeploy it.\n')
  write(path.join(global, "notskills", "x", "SKILL.md"), "---\nname: ignored\n---\n")
  // Lowest precedence first, as the config loader lists them: the project's release wins.
  return { project, dirs: [global, opencode, wright], releaseDir: path.join(wright, "skill", "release") }
}

describe("skill", () => {
  it("skill - discovers SKILL.md files under skill/ and skills/ of each directory", () => {
    const { dirs, releaseDir } = tree()
    const skills = discoverSkills(dirs)
    expect(skills.map((s) => s.name).sort()).toEqual(["deploy", "pdf-tools", "release"])
    const release = skills.find((s) => s.name === "release")!
    expect(release.description).toBe("Cut a release. Use when the user asks to publish.")
    expect(release.location).toBe(path.join(releaseDir, "SKILL.md"))
    expect(release.content).toContain("# Releasing")
    expect(release.content).not.toContain("description:")
    expect(skills.find((s) => s.name === "pdf-tools")!.description).toBe("Work with PDF files: split, merge.")
    expect(skills.find((s) => s.name === "deploy")!.description).toBe("Deploy: to prod")
  })

  it("skill - missing directories are skipped", () => {
    expect(discoverSkills([path.join(tempDir(), "nope")])).toEqual([])
  })

  it("skill - the description lists the available skills", () => {
    const tool = createSkillTool(discoverSkills(tree().dirs))
    expect(tool.description).toContain("<available_skills>")
    expect(tool.description).toContain("<skill>\n    <name>release</name>\n    <description>Cut a release. Use when the user asks to publish.</description>\n  </skill>")
    expect(createSkillTool([]).description).toContain("No skills are available.")
    expect(createSkillTool([]).description).not.toContain("<available_skills>")
  })

  it("skill - loading a skill returns its content, base directory and files", async () => {
    const { project, dirs, releaseDir } = tree()
    const ctx = toolContext({ directory: project })
    const result = await runTool(createSkillTool(discoverSkills(dirs)), { name: "release" }, ctx)
    expect(result.output).toBe(
      [
        '<skill_content name="release">',
        "# Skill: release",
        "",
        "# Releasing\n\nRun scripts/bump.sh first.",
        "",
        `Base directory: ${releaseDir}`,
        "<skill_files>",
        `<file>${path.join(releaseDir, "reference", "notes.md")}</file>`,
        `<file>${path.join(releaseDir, "scripts", "bump.sh")}</file>`,
        "</skill_files>",
        "</skill_content>",
      ].join("\n"),
    )
    expect(result.title).toBe("Loaded skill: release")
    expect(ctx.asks).toEqual([expect.objectContaining({ permission: "skill", patterns: ["release"], always: ["release"] })])
  })

  it("skill - at most 10 other files are listed", async () => {
    const dir = tempDir()
    write(path.join(dir, "skill", "many", "SKILL.md"), "---\ndescription: many files\n---\nbody\n")
    for (let i = 0; i < 15; i++) write(path.join(dir, "skill", "many", `f${String(i).padStart(2, "0")}.txt`), "x")
    const result = await runTool(createSkillTool(discoverSkills([dir])), { name: "many" }, toolContext())
    expect(result.output.match(/<file>/g)).toHaveLength(10)
  })

  it("skill - a linked folder inside a skill is not walked for the file list (it could be /)", async () => {
    const dir = tempDir()
    const outside = tempDir()
    write(path.join(dir, "skill", "linked", "SKILL.md"), "---\ndescription: linked\n---\nbody\n")
    write(path.join(outside, "secret.txt"), "x")
    symlinkSync(outside, path.join(dir, "skill", "linked", "elsewhere"))
    const result = await runTool(createSkillTool(discoverSkills([dir])), { name: "linked" }, toolContext())
    expect(result.output).not.toContain("secret.txt")
  })

  it("skill - an unknown name fails listing the available ones", async () => {
    const ctx = toolContext()
    await expect(runTool(createSkillTool(discoverSkills(tree().dirs)), { name: "nope" }, ctx)).rejects.toThrow(
      'Skill "nope" not found. Available skills: release, deploy, pdf-tools',
    )
    expect(ctx.asks).toEqual([])
  })
})

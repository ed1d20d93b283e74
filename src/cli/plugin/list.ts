import type { PluginStatus } from "../../plugin"
import { withLocalClient } from "../local"
import { bold, dim, green, yellow } from "../ui"

const out = (s: string) => void process.stdout.write(s)

export async function pluginList(args: { dir?: string; format: "table" | "json" }) {
  await withLocalClient(
    args,
    async (client) => {
      const [list, trust] = await Promise.all([client.request<PluginStatus[]>("GET", "/plugin"), client.trust.get()])
      const held = trust.trusted ? [] : trust.ignored.filter((l) => /a plugin|a custom tool|^plugin:|^hooks:/.test(l))
      if (args.format === "json") return out(JSON.stringify(list, null, 2) + "\n")
      if (list.length === 0 && held.length === 0) return out("No plugins, custom tools or command hooks are configured for this project.\n")
      for (const p of list) {
        const mark = p.status === "loaded" ? green("loaded") : yellow(p.status)
        const version = p.version ? `@${p.version}` : ""
        out(`${bold(p.name)}${version}  ${mark}  ${dim(`${p.kind}: ${p.source}`)}${p.loadMs !== undefined ? dim(`  ${p.loadMs} ms`) : ""}\n`)
        if (p.hooks.length) out(`  hooks: ${p.hooks.join(", ")}\n`)
        if (p.tools.length) out(`  tools: ${p.tools.join(", ")}\n`)
        if (p.error) out(`  ${yellow("error:")} ${p.error}\n`)
      }
      if (held.length) {
        out(`${yellow("Not loaded")} (this folder is not trusted; run \`wright trust\` to load them):\n`)
        for (const l of held) out(`  ${l}\n`)
      }
    },
    { progress: (line) => void process.stderr.write(`${dim(line)}\n`) },
  )
}

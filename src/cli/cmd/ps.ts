// `wright ps`: the sessions running on this machine, across projects.
import type { CommandModule } from "yargs"

export const psCommand: CommandModule<object, { format: "table" | "json"; all?: boolean }> = {
  command: "ps",
  describe: "list the sessions wright processes run on this machine, across projects: state (working, waiting for you, idle, failed), model, time and cost",
  builder: (y) =>
    y
      .option("format", { choices: ["table", "json"] as const, default: "table" as const })
      .option("all", { alias: "a", type: "boolean", describe: "idle sessions too (by default only those working, waiting or failed)" }) as never,
  handler: async (args) => (await import("../manage/ps")).ps(args),
}

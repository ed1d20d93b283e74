// How the App wires plugins (src/plugin's Extensions) into the loop's hooks and the spawner:
// shell.env on every command, system and chat.params on each request, the small model, and
// how long a hook may take (the user's config alone decides that).
import type { Config } from "../config"
import type { createProviders } from "../llm"
import type { Extensions } from "../plugin"
import type { Exec } from "../process"
import type { LoopDeps } from "./loop"

/**
 * `experimental.plugin_timeout` (ms): how long one plugin hook may take before it is given up
 * (a guard then blocks its call). Read from the user's own config only: a repository that set
 * it could time the user's guards out.
 */
export function pluginTimeout(config: Config): number {
  const v = (config.experimental as Record<string, unknown> | undefined)?.plugin_timeout
  return typeof v === "number" && v > 0 ? v : 10_000
}

/** A project that sets plugin_timeout is told it does not apply (see pluginTimeout). */
export function projectTimeoutNotice(config: Config, user: Config): string[] {
  const of = (c: Config) => (c.experimental as Record<string, unknown> | undefined)?.plugin_timeout
  if (of(config) === undefined || of(config) === of(user)) return []
  return ["experimental.plugin_timeout in the project's config is ignored: only your global config sets how long a plugin hook may take"]
}

export function withShellEnv(exec: Exec, ext: Extensions): Exec {
  return async (argv, o) => exec(argv, { ...o, env: { ...(await ext.shellEnv({ cwd: o.cwd })), ...o.env } })
}

export function systemWithPlugins(system: LoopDeps["hooks"]["system"], ext: Extensions): LoopDeps["hooks"]["system"] {
  return async (input) => ext.system({ sessionID: input.session.id, model: input.model.info }, await system(input))
}

export function paramsWithPlugins(ext: Extensions): NonNullable<LoopDeps["hooks"]["params"]> {
  return (input, params) =>
    ext.chatParams(
      { sessionID: input.session.id, agent: input.agent.name, model: input.model.info, provider: { source: "config", info: { id: input.model.info.providerID }, options: {} }, message: input.user },
      params,
    )
}

export function pluginSmallModel(providers: ReturnType<typeof createProviders>, ext: Extensions) {
  return async (providerID: string) => {
    const provider = providers.all().find((p) => p.id === providerID)
    return provider ? ext.smallModel(provider as never) : undefined
  }
}

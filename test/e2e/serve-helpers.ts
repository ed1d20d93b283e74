// Starting the built `wright serve` on a free loopback port and reading its URL.
import { finished, spawnWright, waitForOutput, type Sandbox } from "../lib/e2e"

export type Served = ReturnType<typeof spawnWright> & { url: string }

export async function startServe(box: Sandbox, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = spawnWright(["serve", "--port", "0", ...args], { cwd: box.project, env: { ...box.env, ...env } })
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${child.output.stderr}`))))
  await Promise.race([waitForOutput(child, (o) => /listening on http:\/\/\S+\n/.test(o.stdout)), exited])
  const url = /listening on (http:\/\/\S+)\n/.exec(child.output.stdout)![1]!
  return Object.assign(child, { url })
}

/** SIGTERM, then the exit result. */
export async function stopServe(child: Served) {
  if (child.exitCode !== null) return { code: child.exitCode, signal: null, stdout: child.output.stdout, stderr: child.output.stderr }
  const done = finished(child, 20_000)
  child.kill("SIGTERM")
  return done
}

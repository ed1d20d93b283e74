// The interactive terminal UI (Ink + React on the main thread). It reaches the core only
// through the sdk: a client whose fetch goes over the worker RPC (`rpc.ts`) or to a remote
// `wright serve`, and an event source. It never imports the core itself.
// Ink and React load only when the UI starts, so the worker (which needs only the RPC) and
// `--help` stay light.
import type { TuiOptions } from "./run"

export type { TuiOptions } from "./run"
export { tuiConfigPaths } from "./tui-config"
export { createRpcClient, serveRpc, type EventSource, type Port, type RpcClient, type RpcHandlers, type MainToWorker, type WorkerToMain } from "./rpc"

let loading: ReturnType<typeof loadInk> | undefined

/**
 * Starts loading Ink, React and the UI's modules (~0.9 MB to compile) without waiting, so that
 * work overlaps whatever the caller waits for before `runTui` (the core's boot).
 */
export function preloadTui(): void {
  loading ??= loadInk()
  loading.catch(() => {})
}

export async function runTui(opts: TuiOptions): Promise<void> {
  const { runTui: run } = await (loading ??= loadInk())
  return run(opts)
}

/**
 * Ink decides once, when it loads, whether it runs in CI (any CI / CI_* variable), and then
 * draws only the last frame. The UI only starts on a real terminal, so a CI variable left in
 * the user's shell must not break it: hide those variables while Ink loads, then restore them.
 */
async function loadInk() {
  const hidden = Object.keys(process.env).filter((k) => k === "CI" || k === "CONTINUOUS_INTEGRATION" || k.startsWith("CI_"))
  const saved = hidden.map((k) => [k, process.env[k]] as const)
  for (const k of hidden) delete process.env[k]
  try {
    return await import("./run")
  } finally {
    for (const [k, v] of saved) process.env[k] = v
  }
}

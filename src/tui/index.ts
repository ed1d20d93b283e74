// The interactive terminal UI (Ink + React on the main thread). It reaches the core only
// through the sdk: a client whose fetch goes over the worker RPC (`rpc.ts`) or to a remote
// `wright serve`, and an event source. It never imports the core itself.
// Ink and React load only when the UI starts, so the worker (which needs only the RPC) and
// `--help` stay light.
import type { TuiOptions } from "./run"

export type { TuiOptions } from "./run"
export { createRpcClient, serveRpc, type EventSource, type Port, type RpcClient, type RpcHandlers, type MainToWorker, type WorkerToMain } from "./rpc"

export async function runTui(opts: TuiOptions): Promise<void> {
  const { runTui: run } = await import("./run")
  return run(opts)
}

// Mounts the TUI on a terminal and resolves when the user quits. The caller (the cli) owns
// the core: it passes an sdk client and an event source, and shuts the core down after.
import { render } from "ink"
import type { Client } from "../sdk"
import type { ModelRef } from "../protocol"
import { App } from "./app"
import { showConfigWarnings } from "./config-warnings"
import { createController } from "./controller"
import type { EventSource } from "./rpc"
import { watchMcpAuth } from "./mcp-auth"
import { createStore, type Store } from "./store"
import type { ModelPrefsStore } from "./session-tools"
import { chooseRing, createNotifier, type NotifySetting } from "./notify"
import { ThemeRoot } from "./view/theme-root"
import type { TuiConfigPaths } from "./tui-config"
import { loadUiSettings } from "./ui-settings"

export interface TuiOptions {
  client: Client
  events: EventSource
  directory: string
  /** Resolves when the core can answer (the worker booted); rejects with its boot error. */
  ready?: Promise<void>
  /** A session to open at once (already checked to exist). */
  sessionID?: string
  /** Sent as the first prompt once ready. */
  prompt?: string
  model?: ModelRef
  /** --variant: the model variant prompts start with. */
  variant?: string
  agent?: string
  /** Earlier prompts, oldest first, for Up/Down. */
  history?: string[]
  remember?: (text: string) => void
  writeExport?: (name: string, content: string) => Promise<string>
  /** Ctrl+V: the clipboard's image; undefined when it holds none; throws when no tool can read it. */
  readClipboardImage?: () => Promise<{ mime: string; data: Buffer } | undefined>
  /** The /models picker's recents and favourites, kept across launches. */
  modelPrefs?: ModelPrefsStore
  /**
   * Opens `text` (as a file called `name`) in the user's $VISUAL/$EDITOR and resolves with what
   * they saved; the UI has released the terminal while it runs. Undefined: /editor says it is not available.
   */
  editText?: (text: string, name: string) => Promise<string>
  /** Lines printed above the UI at start (e.g. the URL the server listens on). */
  notices?: string[]
  stdin?: NodeJS.ReadStream
  stdout?: NodeJS.WriteStream
  /** Quits the UI as if the user did (e.g. on SIGTERM/SIGHUP). */
  signal?: AbortSignal
  /** Where tui.json (theme, keys) and custom themes are; none: defaults only. */
  tuiConfig?: TuiConfigPaths
}

const BRACKETED_PASTE_ON = "\x1b[?2004h"
const BRACKETED_PASTE_OFF = "\x1b[?2004l"

export async function runTui(opts: TuiOptions): Promise<void> {
  const stdout = opts.stdout ?? process.stdout
  const store = createStore()
  store.set({ ...(opts.agent ? { agent: opts.agent } : {}), ...(opts.model ? { model: opts.model } : {}), ...(opts.variant ? { variant: opts.variant } : {}) })
  // The home screen (and its recent sessions, which may arrive first) is not drawn for a session about to open.
  if (opts.sessionID) store.set({ route: "opening" })
  const controller = createController({ client: opts.client, store, directory: opts.directory, remember: opts.remember, writeExport: opts.writeExport, readClipboardImage: opts.readClipboardImage })
  const unsubscribeApply = opts.events.subscribe(store.apply)
  // A reloaded project (config files changed, /trust, PATCH /config) may bring other agents, commands and a default model.
  const unsubscribeReload = opts.events.subscribe((e) => {
    if (e.type === "server.instance.disposed") void controller.reloaded()
    // A stream that resumed after a drop but whose missed events are gone from the log.
    if (e.type === "server.resync") void controller.resync(e.properties.sessions)
  })
  const unsubscribeNotify = opts.events.subscribe(notifier(opts.client, store, stdout))
  const unsubscribe = () => (unsubscribeApply(), unsubscribeReload(), unsubscribeNotify())
  const unwatchMcp = watchMcpAuth(opts.client, store, opts.events, opts.ready ?? Promise.resolve())
  for (const [i, text] of (opts.notices ?? []).entries()) store.print({ kind: "notice", key: `start:${i}`, text, tone: "info" })
  const settings = opts.tuiConfig ? loadUiSettings(opts.tuiConfig) : undefined
  for (const [i, text] of (settings?.problems ?? []).entries()) store.print({ kind: "notice", key: `tui-json:${i}`, text, tone: "error" })

  let quit!: () => void
  const quitting = new Promise<void>((resolve) => (quit = resolve))
  let fatal: unknown
  if (stdout.isTTY) stdout.write(BRACKETED_PASTE_ON)
  const app = <App store={store} controller={controller} onExit={() => quit()} history={opts.history} modelPrefs={opts.modelPrefs} editText={opts.editText} keymap={settings?.keymap} themes={settings?.themes} />
  const ink = render(settings ? <ThemeRoot themes={settings.themes}>{app}</ThemeRoot> : app, {
    stdout,
    // An explicit `stdin: undefined` would replace Ink's default.
    ...(opts.stdin ? { stdin: opts.stdin } : {}),
    exitOnCtrlC: false,
    patchConsole: true,
    maxFps: 30,
    incrementalRendering: false,
  })

  ;(opts.ready ?? Promise.resolve()).then(
    async () => {
      // The trust question comes first and holds back the first prompt: trusting reloads the
      // project, which would interrupt a running step.
      const asked = controller.askTrust()
      void showConfigWarnings(opts.client, store)
      // The session's page does not wait for the agents, commands and sessions lists, and is asked for first.
      const opening = opts.sessionID ? controller.openSession(opts.sessionID) : undefined
      await Promise.all([controller.boot(), opening])
      if (store.getState().route === "opening") store.home()
      await asked
      if (opts.prompt) await controller.submit(opts.prompt)
    },
    (e) => {
      fatal = e
      quit()
    },
  )

  opts.signal?.addEventListener("abort", () => quit(), { once: true })
  if (opts.signal?.aborted) quit()
  // A render error ends Ink on its own (it shows the error): that is a quit too.
  const inkEnded = ink.waitUntilExit().then(
    () => quit(),
    (e) => {
      fatal = e
      quit()
    },
  )
  try {
    await quitting
  } finally {
    unsubscribe()
    unwatchMcp()
    store.flush()
    // On a boot failure the half-started UI is wiped, so only the error remains.
    if (fatal) ink.clear()
    ink.unmount()
    await inkEnded
    if (stdout.isTTY) stdout.write(BRACKETED_PASTE_OFF)
  }
  if (fatal) throw fatal
}

/** Rings the terminal when a session needs the user or finishes (tui.notifications: false turns it off). */
function notifier(client: Client, store: Store, stdout: NodeJS.WriteStream) {
  let setting: NotifySetting
  void client.config.get().then(
    (c) => void (setting = (c as { tui?: { notifications?: NotifySetting } }).tui?.notifications),
    () => {},
  )
  return createNotifier({
    write: (s) => void (stdout.isTTY && stdout.write(s)),
    ring: () => chooseRing(process.env, setting),
    session(id) {
      const s = store.getState()
      const found = s.session?.id === id ? s.session : s.sessions.find((x) => x.id === id)
      // Only root sessions are listed: one not found is a subagent's.
      return { title: found?.title, child: !found || found.parentID !== undefined }
    },
  })
}

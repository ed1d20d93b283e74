// What the TUI's own slash commands do (the table of them, with their help, is commands.ts),
// and the other ways to reach them: a command by name (the palette, a tui.json binding) and
// tui.json's keys (the leader, the palette key). Its own module so the prompt's keys read as
// keys, and a command's effect is found in one switch.
import type { AppHost } from "./app-state"
import { COMMANDS, findCommand, HELP } from "./commands"
import * as E from "./editor"
import type { Key } from "./keys"
import { matchKey } from "./keymap"
import { paletteItems, paletteKey } from "./palette"
import { openEditor, pageIfLarge } from "./screen-handoff"
import { orderModels } from "./session-tools"

/** Runs one of the TUI's own commands (`name` as in COMMANDS, not an alias) with the text after it. */
export function runCommand(host: AppHost, name: string, args: string) {
  const { store, controller, tools } = host
  const setUi = host.setUi
  const s = store.getState()
  switch (name) {
    case "new":
      return controller.newSession()
    case "exit":
      return host.onExit()
    case "help":
      return store.print({ kind: "notice", key: `help:${Date.now()}`, text: HELP, tone: "markdown" })
    case "thinking":
      return store.set({ showThinking: !s.showThinking })
    case "details":
      return store.set({ showDetails: !s.showDetails })
    case "history":
      return void controller.older()
    case "trust":
      return void controller.reviewTrust()
    case "status":
      return void controller.status()
    case "heap":
      return void controller.heapSnapshot()
    case "themes":
      return openThemes(host)
    case "compact":
      return void controller.compact()
    case "export":
      if (!host.editText) return void controller.exportSession()
      return void controller.transcript().then((t) => t && setUi({ editing: { kind: "export", text: t.content, name: t.name }, frozen: host.ui().frozen ?? store.getState().printed }))
    case "editor":
      return openEditor(host)
    case "redo":
      return void controller.redo()
    case "diff":
      return void controller.diff((text) => pageIfLarge(host, "diff: this session's changes", text))
    case "rename":
      return void tools.rename(args)
    case "copy":
      return tools.copy()
    case "auto":
      return tools.toggleAuto()
    case "mcps":
      return void tools.mcpItems().then(
        (items) => (items.length ? setUi({ select: { kind: "mcps", title: "MCP servers (enter switches one for this session)", items, filter: args, selected: 0 } }) : store.notify("No MCP servers are configured")),
        () => store.notify("MCP: could not list the servers", "error"),
      )
    case "fork":
    case "timeline": {
      if (!s.session) return store.notify(`No session to ${name === "fork" ? "fork" : "go back in"}`)
      const items = tools.prompts()
      if (!items.length) return store.notify("No prompts in this session yet")
      const title = name === "fork" ? "Fork from a prompt (the new session has the messages before it)" : "Timeline: undo from a prompt on"
      return setUi({ select: { kind: name, title, items, filter: args, selected: 0 } })
    }
    case "undo":
      return void controller.undo().then((text) => text !== undefined && setUi({ editor: E.setText(text) }))
    case "agents":
      return setUi({ select: { kind: "agents", title: "Agents", items: s.agents.map((a) => ({ label: a.name, detail: a.description?.slice(0, 60), value: a.name })), filter: "", selected: 0 } })
    case "connect":
      return void controller.connectable().then(
        (items) => {
          const exact = args && items.find((i) => i.value === args)
          if (exact) return setUi({ secret: { providerID: exact.value, text: "" } })
          setUi({ select: { kind: "connect", title: "Connect a provider", items, filter: args, selected: 0 } })
        },
        () => store.notify("Connect: could not list the providers", "error"),
      )
    case "variants":
      return void controller.variants().then((items) =>
        items.length ? setUi({ select: { kind: "variants", title: "Variants", items, filter: args, selected: 0 } }) : undefined,
      )
    case "models":
      return void controller.models().then(
        (items) => setUi({ select: { kind: "models", title: "Models", items: orderModels(items, tools.modelPrefs()), filter: args, selected: 0 } }),
        () => store.notify("Models: not supported by this server yet", "error"),
      )
    case "children":
      return void controller.children().then((items) => items.length && setUi({ select: { kind: "children", title: "Subagent sessions", items, filter: args, selected: 0 } }))
    case "parent":
      return void controller.parent()
    case "sessions":
      return void controller.sessions().then(
        (list) =>
          setUi({
            select: {
              kind: "sessions",
              title: "Sessions",
              items: list.map((x) => ({ label: x.title, detail: `${x.worktree ? `[${x.worktree.branch}] ` : ""}${new Date(x.time.updated).toLocaleString()}`, value: x.id })),
              filter: args,
              selected: 0,
            },
          }),
        () => store.notify("Sessions: could not list them", "error"),
      )
  }
}

/** A command by name, without arguments: the TUI's own, else the server's. */
export function runNamed(host: AppHost, name: string) {
  const { store, controller } = host
  const own = findCommand(name)
  if (own) return runCommand(host, own.name, "")
  if (store.getState().commands.some((c) => c.name === name)) return void controller.command(name, "", store.getState().busy ? "steer" : undefined)
  store.notify(`/${name}: no such command (a key in tui.json runs it)`, "error")
}

/** tui.json's keys: the leader (then one key within leader_timeout), the palette and command bindings. True when the key was theirs. */
export function mappedKey(host: AppHost, key: Key): boolean {
  const { keymap, leaderAt, store } = host
  if (!keymap) return false
  const after = leaderAt.current > 0 && Date.now() - leaderAt.current < keymap.leaderTimeout
  leaderAt.current = 0
  const r = matchKey(keymap, key, after)
  if (r.type === "leader") leaderAt.current = Date.now()
  if (r.type === "action") {
    if (r.id === "command_list") host.setUi({ select: { kind: "palette", title: `Commands ${paletteKey(keymap)}`.trim(), items: paletteItems(keymap, COMMANDS, store.getState().commands), filter: "", selected: 0 } })
    else if (r.command) runNamed(host, r.command)
  }
  return r.type !== "none"
}

function openThemes(host: AppHost) {
  const { themes, store } = host
  if (!themes) return store.notify("Themes: no tui.json location (a remote UI?)", "error")
  const names = themes.list()
  const current = themes.get().name
  host.setUi({ select: { kind: "themes", title: "Themes (↑↓ previews, enter keeps it in tui.json)", items: names.map((n) => ({ label: n, detail: n === current ? "current" : undefined, value: n })), filter: "", selected: Math.max(0, names.indexOf(current)) } })
}

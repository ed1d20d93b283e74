// What the user's actions do: every call goes through the sdk (the worker's core over RPC, or
// a remote server), and every result lands in the store. Failures become notices, never
// crashes: the prompt stays usable.
import { toMarkdown, type Client } from "../sdk"
import type { Delivery, MessageWithParts, ModelRef, PartInput, PermissionReply, Session, TrustStatus } from "../protocol"
import { createApi, type Api } from "./api"
import { PAGE, type Store } from "./store"
import { statusText } from "./status"
import { diffMarkdown, diffText, fileReport, relative } from "./diff-text"
import { createAttachments, imageMime, readPastedImage } from "./attachments"

export interface ControllerOptions {
  client: Client
  store: Store
  directory: string
  /** Saves a submitted prompt to the persistent history. */
  remember?: (text: string) => void
  /** Writes an exported session; returns where it went. */
  writeExport?: (name: string, content: string) => Promise<string>
  /** Ctrl+V: the clipboard's image (wl-paste or xclip, run by the cli); undefined when it holds none. Throws when no tool can read it. */
  readClipboardImage?: () => Promise<{ mime: string; data: Buffer } | undefined>
}

const errText = (e: unknown) => (e instanceof Error ? e.message : String(e))
const notFound = (e: unknown) => e instanceof Error && (e as { status?: number }).status === 404
/** The value of a /connect choice that signs in (`signin:<provider>`) rather than asks for a key. */
const SIGN_IN = "signin:"

export function createController(opts: ControllerOptions) {
  const { store } = opts
  const api: Api = createApi(opts.client)
  const images = createAttachments()
  // Cursor of the oldest page printed by /history.
  let older: string | undefined
  // protocol's NO_MODEL_ISSUE: the server found no model to send to. Repeated here, since this
  // thread loads no protocol code.
  const isNoModel = (e: unknown) =>
    ((e as { body?: { data?: { issues?: unknown } } }).body?.data?.issues as { path?: string; message?: string }[] | undefined)?.some?.((i) => i.path === "model" && i.message === "no model is configured") ?? false
  const fail = (what: string) => (e: unknown) => store.notify(`${what}: ${notFound(e) ? "not supported by this server yet" : errText(e)}`, "error")

  async function loadBasics() {
    // The configured model is known before the prompt is: ctrl+t or a prompt sent at once needs it.
    // The command list waits for MCP servers still connecting (their prompts are commands): it
    // arrives on its own, never holding up the rest.
    void api
      .commands()
      .then((commands) => store.set({ commands: commands.map((c) => ({ name: c.name, description: c.description })) }))
      .catch(() => {})
    const [agents, statuses, permissions, questions, sessions, defaultModel] = await Promise.all([
      api.agents().catch(() => []),
      api.statuses().catch(() => ({})),
      api.permissions().catch(() => []),
      api.questions().catch(() => []),
      api.sessions().catch(() => [] as Session[]),
      opts.client.config.get().then(
        (c) => (typeof c.model === "string" ? c.model : undefined),
        () => store.getState().defaultModel,
      ),
    ])
    store.setStatuses(statuses)
    const primary = agents.filter((a) => a.mode !== "subagent" && !a.hidden)
    const s = store.getState()
    store.set({
      agents: primary,
      mentions: agents.filter((a) => !a.hidden).map((a) => a.name),
      agent: primary.some((a) => a.name === s.agent) ? s.agent : (primary[0]?.name ?? s.agent),
      permissions: [...s.permissions, ...permissions.filter((p) => !s.permissions.some((q) => q.id === p.id))],
      questions: [...s.questions, ...questions.filter((p) => !s.questions.some((q) => q.id === p.id))],
      sessions,
      defaultModel,
      ready: true,
    })
    loadProviders(defaultModel)
  }

  /** The usable providers: the context limit, and the model a prompt goes to when the config names none. */
  function loadProviders(configModel = store.getState().defaultModel) {
    return api
      .providers()
      .then((r) => {
        const chosen = configModel ?? r.model
        store.set({ defaultModel: chosen, noModel: !chosen })
        contextFor(r.providers)
      })
      .catch(() => {})
  }

  let providers: Awaited<ReturnType<Api["providers"]>>["providers"] = []
  // The models picker's choices by their label: the picked one is looked up, never split again.
  const modelChoices = new Map<string, ModelRef>()
  function contextFor(list: typeof providers) {
    providers = list
    const m = store.getState().model ?? (store.getState().last ? { providerID: store.getState().last!.providerID, modelID: store.getState().last!.modelID } : undefined)
    const limit = m ? list.find((p) => p.id === m.providerID)?.models[m.modelID]?.limit?.context : undefined
    if (limit) store.set({ contextLimit: limit })
  }

  /** The model the next prompt goes to: the picked one, else the last answer's, else the configured one. */
  function currentModel(): ModelRef | undefined {
    const s = store.getState()
    if (s.model) return s.model
    if (s.last) return { providerID: s.last.providerID, modelID: s.last.modelID }
    const at = s.defaultModel?.indexOf("/") ?? -1
    return at > 0 ? { providerID: s.defaultModel!.slice(0, at), modelID: s.defaultModel!.slice(at + 1) } : undefined
  }

  function variantsOf(m: ModelRef): string[] {
    return Object.keys(providers.find((p) => p.id === m.providerID)?.models[m.modelID]?.variants ?? {})
  }
  const root = () => (store.getState().session?.directory ?? opts.directory).replace(/\/+$/, "")

  async function openSession(id: string) {
    const [session, page] = await Promise.all([api.session(id), api.messages(id, { limit: PAGE })])
    older = undefined
    store.open(session, page, page.length >= PAGE)
    // A session a crashed process left working carries on; its steps arrive as events.
    api.resume(id).catch(() => {})
    api.statuses().then((s) => store.setStatuses(s), () => {})
    // An empty inbox (nearly always) on a page that shows none: nothing to draw.
    api.inbox(id).then((items) => store.getState().session?.id === id && (items.length || store.getState().inbox.length) && store.set({ inbox: items }), () => {})
    api.diff(id).then(
      (d) => store.getState().session?.id === id && store.set({ changes: d.map(({ file, additions, deletions }) => ({ file, additions, deletions })) }),
      () => {},
    )
    if (!store.getState().contextLimit && providers.length) contextFor(providers)
  }

  async function ensureSession(): Promise<string> {
    const s = store.getState().session
    if (s) return s.id
    const created = await api.createSession()
    store.open(created, [], false, true)
    return created.id
  }

  // MCP resources by `server:name`: `@server:name` mentions them. Refreshed as files are completed.
  let resources: Awaited<ReturnType<typeof api.resources>> = {}
  const loadResources = () =>
    Promise.resolve()
      .then(() => api.resources())
      .then(
      (r) => void (resources = r),
      () => {},
    )

  /** Parts of a prompt: the text, plus a file part per `@path`, a resource part per `@server:name` and an agent part per `@agent`. */
  function partsOf(text: string): PartInput[] {
    const parts: PartInput[] = [{ type: "text", text }]
    const agents = new Set(store.getState().mentions)
    const seen = new Set<string>()
    for (const m of text.matchAll(/(?:^|\s)@([\w./~-][^\s]*)/g)) {
      const ref = m[1]!.replace(/[.,;:!?)]+$/, "")
      if (seen.has(ref)) continue
      seen.add(ref)
      const start = m.index + m[0].indexOf("@")
      const source = { value: `@${ref}`, start, end: start + ref.length + 1 }
      const resource = Object.hasOwn(resources, ref) ? resources[ref] : undefined
      if (agents.has(ref)) parts.push({ type: "agent", name: ref, source })
      else if (resource) {
        parts.push({ type: "file", mime: resource.mimeType ?? "text/plain", filename: resource.name, url: resource.uri, source: { type: "resource", clientName: resource.client, uri: resource.uri, text: source } })
      } else {
        const abs = ref.startsWith("/") ? ref : `${opts.directory.replace(/\/+$/, "")}/${ref.replace(/^\.\//, "")}`
        parts.push({ type: "file", mime: ref.endsWith("/") ? "application/x-directory" : (imageMime(ref) ?? "text/plain"), filename: ref, url: `file://${encodeURI(abs)}` })
      }
    }
    parts.push(...images.partsFor(text))
    return parts
  }

  async function prompt(text: string, delivery?: Delivery) {
    const fresh = !store.getState().session
    const id = await ensureSession()
    const s = store.getState()
    // To a busy session the prompt waits in its inbox (shown above the prompt) until delivered.
    const waits = s.busy && delivery !== undefined
    if (!waits) store.setStatuses({ [id]: { type: "busy" } })
    await api.prompt(id, { agent: s.agent, ...(s.model ? { model: s.model } : {}), ...(s.variant ? { variant: s.variant } : {}), parts: partsOf(text), ...(delivery ? { delivery } : {}) }).catch(async (e) => {
      if (waits) return fail("The prompt failed")(e)
      store.setStatuses({ [id]: { type: "idle" } })
      if (fresh) await dropIfEmpty(id)
      if (isNoModel(e)) store.notify("No model yet: type /connect to store a provider's API key (or set one with /models).", "error")
      else fail("The prompt failed")(e)
    })
  }

  /** A session this prompt made and could not send to (nothing was stored, e.g. no model) is not kept. */
  async function dropIfEmpty(id: string) {
    const messages = await api.messages(id, { limit: 1 }).catch(() => undefined)
    if (messages?.length !== 0) return
    await api.deleteSession(id).catch(() => {})
    if (store.getState().session?.id === id) store.home()
  }

  // What the folder's config held back when last asked (JSON), so a reload asks only about something new.
  let lastTrust: string | undefined
  // Resolves whoever waits for the launch's trust question (the first prompt) once it is answered.
  let trustAnswered: (() => void) | undefined
  const askedTrust = () => {
    store.set({ trust: undefined })
    trustAnswered?.()
    trustAnswered = undefined
  }
  const needsTrust = (t: TrustStatus) => !t.trusted && t.ignored.length > 0

  async function shell(command: string) {
    const id = await ensureSession()
    const s = store.getState()
    await api.shell(id, { agent: s.agent, command, ...(s.model ? { model: s.model } : {}) }).catch(fail("!shell"))
  }

  return {
    api,
    // Resources wait for the MCP servers to connect: never held up for them.
    boot: () => (void loadResources(), loadBasics().catch(fail("Loading"))),
    openSession: (id: string) => openSession(id).catch(fail("Opening the session")),
    /** Validated resume: throws a clear error for an unknown id. */
    resume: openSession,
    /** `delivery`: how a prompt to the busy session is delivered (Enter steers, ctrl+q queues); ignored when idle. */
    async submit(raw: string, delivery?: Delivery) {
      const text = raw.trim()
      if (!text) return
      opts.remember?.(raw)
      if (text.startsWith("!")) return shell(text.slice(1).trim())
      return prompt(raw, delivery).catch(fail("The prompt failed"))
    },
    /**
     * A paste that is the path of an image file attaches the image: returns its chip (to insert
     * instead of the text), or undefined for any other paste.
     */
    pastedImage(text: string): string | undefined {
      try {
        const image = readPastedImage(text, opts.directory)
        return image && images.add(image)
      } catch (e) {
        store.notify(`Image not attached: ${errText(e)}`, "error")
        return undefined
      }
    },
    /** Ctrl+V: the clipboard's image as a chip; a notice when there is none or no tool to read it. */
    async clipboardImage(): Promise<string | undefined> {
      if (!opts.readClipboardImage) return void store.notify("Pasting images is not available here: paste the image file's path instead", "error")
      let got: Awaited<ReturnType<typeof opts.readClipboardImage>>
      try {
        got = await opts.readClipboardImage()
      } catch (e) {
        return void store.notify(`Clipboard: ${errText(e)}`, "error")
      }
      if (!got) return void store.notify("No image on the clipboard", "error")
      return images.add({ mime: got.mime, url: `data:${got.mime};base64,${got.data.toString("base64")}` })
    },
    /** Runs a server-side slash command (e.g. /init, /review, a config or Markdown command); to a busy session it waits in the inbox. */
    async command(name: string, args: string, delivery?: Delivery) {
      const id = await ensureSession()
      const s = store.getState()
      const waits = s.busy && delivery !== undefined
      if (!waits) store.setStatuses({ [id]: { type: "busy" } })
      const model = s.model ? { model: `${s.model.providerID}/${s.model.modelID}` } : {}
      api.command(id, { command: name, arguments: args, agent: s.agent, ...model, ...(s.variant ? { variant: s.variant } : {}), ...(delivery ? { delivery } : {}) }).catch((e) => {
        if (!waits) store.setStatuses({ [id]: { type: "idle" } })
        fail(`/${name}`)(e)
      })
    },
    /**
     * Takes the newest waiting prompt out of the inbox and resolves with its text, for the user
     * to edit and send again, or to drop (withdrawn); undefined when it was delivered meanwhile.
     */
    async pullBack(): Promise<string | undefined> {
      const s = store.getState()
      const id = s.session?.id
      const item = s.inbox[s.inbox.length - 1]
      if (!id || !item) return undefined
      const ok = await api.withdraw(id, item.id).then(
        () => true,
        (e) => {
          if ((e as { status?: number }).status === 409) store.notify("Too late: that prompt was delivered already")
          else fail("Withdraw")(e)
          return false
        },
      )
      if (!ok) return undefined
      store.set({ inbox: s.inbox.filter((i) => i.id !== item.id) })
      const text = item.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n")
      return item.command && !text.startsWith("/") ? `/${item.command.name} ${item.command.arguments}` : text
    },
    abort() {
      const id = store.getState().session?.id
      if (id) api.abort(id).catch(fail("Interrupt"))
    },
    newSession() {
      store.home()
    },
    cycleAgent(step = 1) {
      const s = store.getState()
      const names = s.agents.length ? s.agents.map((a) => a.name) : ["build", "plan"]
      const i = names.indexOf(s.agent)
      store.set({ agent: names[(i + step + names.length) % names.length]! })
    },
    /** Switches to a model the picker offered (a value from `models()`); a variant the new model lacks is dropped. */
    chooseModel(value: string) {
      const model = modelChoices.get(value)
      if (!model) return
      const variant = store.getState().variant
      store.set({ model, ...(variant && !variantsOf(model).includes(variant) ? { variant: undefined } : {}) })
      contextFor(providers)
    },
    /** The /variants picker: "default" and each of the current model's variants; empty (with a notice) when it has none. */
    async variants(): Promise<{ label: string; value: string; detail?: string }[]> {
      if (!providers.length) contextFor((await api.providers().catch(() => ({ providers: [] }))).providers)
      const model = currentModel()
      const names = model ? variantsOf(model) : []
      if (!model || names.length === 0) {
        store.notify(model ? `${model.providerID}/${model.modelID} has no variants` : "Pick a model first (/models)")
        return []
      }
      const now = store.getState().variant
      return [{ label: "default", value: "" }, ...names.map((n) => ({ label: n, value: n }))].map((i) => (i.value === (now ?? "") ? { ...i, detail: "current" } : i))
    },
    chooseVariant(value: string) {
      store.set({ variant: value || undefined })
    },
    /** ctrl+t: the current model's next variant, then back to its default; a model without variants says so. */
    async cycleVariant() {
      if (!providers.length) contextFor((await api.providers().catch(() => ({ providers: [] }))).providers)
      const model = currentModel()
      if (!model) return store.notify("Pick a model first (/models)")
      const names = variantsOf(model)
      if (names.length === 0) return store.notify(`${model.providerID}/${model.modelID} has no variants`)
      const now = store.getState().variant
      const next = now === undefined ? names[0] : names[names.indexOf(now) + 1]
      store.set({ variant: next })
      store.notify(`Variant: ${next ?? "default"}`)
    },
    async models(): Promise<{ label: string; value: string }[]> {
      const r = await api.providers()
      providers = r.providers
      modelChoices.clear()
      for (const p of r.providers) for (const m of Object.keys(p.models)) modelChoices.set(`${p.id}/${m}`, { providerID: p.id, modelID: m })
      return [...modelChoices.keys()].map((label) => ({ label, value: label }))
    },
    /** `/connect`: the two subscription sign-ins, then every provider the core knows, the connected ones (a key, a sign-in or a config entry) marked. */
    async connectable(): Promise<{ label: string; detail?: string; value: string }[]> {
      const r = await api.allProviders()
      const connected = new Set(r.connected)
      const mark = (id: string) => (connected.has(id) ? " · connected" : "")
      return [
        { label: "github-copilot", detail: `GitHub Copilot · sign in with GitHub${mark("github-copilot")}`, value: `${SIGN_IN}github-copilot` },
        { label: "chatgpt", detail: `ChatGPT Plus/Pro · sign in, for openai models${mark("openai")}`, value: `${SIGN_IN}openai` },
        ...r.all.filter((p) => p.id !== "github-copilot").map((p) => ({ label: p.id, detail: `${p.name}${mark(p.id)}`, value: p.id })),
      ]
    },
    /** A /connect choice that signs in rather than takes a key. */
    signInChoice: (value: string): string | undefined => (value.startsWith(SIGN_IN) ? value.slice(SIGN_IN.length) : undefined),
    /** Runs a subscription sign-in through the core: prints the page and the code, waits for the user, then its models are usable. */
    async signIn(providerID: string) {
      const name = providerID === "openai" ? "ChatGPT" : "GitHub Copilot"
      const started = await api.signIn(providerID).catch((e) => (fail(`/connect ${name}`)(e), undefined))
      if (!started) return
      store.print({ kind: "notice", key: `signin:${providerID}:${Date.now()}`, text: `${name}: open ${started.url}\n${started.instructions}`, tone: "info" })
      store.notify(`Waiting for the ${name} sign-in…`)
      const ok = await api.signedIn(providerID).then(
        () => true,
        (e) => (fail(`/connect ${name}`)(e), false),
      )
      if (!ok) return
      await loadProviders()
      store.print({ kind: "notice", key: `signedin:${providerID}:${Date.now()}`, text: `Signed in to ${name}: /models lists its models (${providerID}/…).`, tone: "info" })
      store.notify(`Connected ${name}`)
    },
    /** Stores the key through the core (never printed, never in the prompt history); its models are usable at once. */
    async connect(providerID: string, key: string) {
      store.notify(`Storing the ${providerID} key…`)
      const ok = await api.connect(providerID, key).then(
        () => true,
        (e) => (fail(`/connect ${providerID}`)(e), false),
      )
      if (!ok) return
      await loadProviders()
      store.print({ kind: "notice", key: `connect:${providerID}:${Date.now()}`, text: `Stored the ${providerID} key in your auth.json: /models lists its models.`, tone: "info" })
      store.notify(`Connected ${providerID}`)
    },
    async older() {
      const s = store.getState()
      const id = s.session?.id
      if (!id) return store.notify("No session is open")
      if (!s.hasOlder) return store.notify("No earlier messages")
      const before = older ?? store.oldest()
      const page = await api.messages(id, { limit: PAGE, before }).catch((e) => (fail("History")(e), [] as MessageWithParts[]))
      older = page[0]?.info.id ?? before
      store.printOlder(page, page.length >= PAGE)
    },
    async compact() {
      const s = store.getState()
      const id = s.session?.id
      if (!id) return store.notify("No session to compact")
      const m = s.model ?? (s.last ? { providerID: s.last.providerID, modelID: s.last.modelID } : undefined)
      if (!m) return store.notify("Pick a model first (/models)")
      store.notify("Compacting…")
      await api.summarize(id, { providerID: m.providerID, modelID: m.modelID }).catch(fail("Compact"))
    },
    /** Reverts the last user message; resolves with its text for the prompt. */
    async undo(): Promise<string | undefined> {
      const s = store.getState()
      const id = s.session?.id
      if (!id) return void store.notify("No session to undo in")
      const revertAt = s.session?.revert?.messageID
      const users = store.messages().filter((m) => m.info.role === "user" && (!revertAt || m.info.id < revertAt))
      const last = users[users.length - 1]
      if (!last) return void store.notify("Nothing to undo")
      if (s.busy) await api.abort(id).catch(() => {})
      const reverted = await api.revert(id, last.info.id).catch((e) => void fail("Undo")(e))
      if (!reverted) return undefined
      const text = last.parts.filter((p) => p.type === "text" && !p.synthetic).map((p) => (p as { text: string }).text).join("\n")
      const files = fileReport(reverted.revert, root())
      store.print({ kind: "notice", key: `undo:${last.info.id}:${Date.now()}`, text: `↶ undone: ${text.split("\n")[0]!.slice(0, 80)} (/redo restores)${files}`, tone: "dim" })
      api.diff(id).then((d) => store.set({ changes: d.map(({ file, additions, deletions }) => ({ file, additions, deletions })) }), () => {})
      return text
    },
    async redo() {
      const id = store.getState().session?.id
      if (!id) return store.notify("No session")
      const before = store.getState().session?.revert
      if (!before) return store.notify("Nothing to redo")
      const ok = await api.unrevert(id).then(
        () => true,
        (e) => (fail("Redo")(e), false),
      )
      if (!ok) return
      await openSession(id).catch(fail("Reload"))
      const files = before.restored?.length ? `\n  back: ${before.restored.map((f) => relative(f, root())).join(", ")}` : ""
      store.print({ kind: "notice", key: `redo:${Date.now()}`, text: `↷ redone${files}`, tone: "dim" })
    },
    /** Prints the session's changed files with their counts and the unified diff; `page` may take a large one instead (the pager), answering true. */
    async diff(page?: (text: string) => boolean) {
      const id = store.getState().session?.id
      if (!id) return store.notify("No session")
      const diffs = await api.diff(id).catch((e) => void fail("Diff")(e))
      if (!diffs) return
      if (!diffs.length) return store.print({ kind: "notice", key: `diff:${Date.now()}`, text: "No file changes in this session", tone: "dim" })
      store.set({ changes: diffs.map(({ file, additions, deletions }) => ({ file, additions, deletions })) })
      if (page?.(diffText(diffs))) return
      store.print({ kind: "notice", key: `diff:${Date.now()}`, text: diffMarkdown(diffs), tone: "markdown" })
    },
    /** The open session as Markdown, for /export in the editor; undefined (with a notice) when there is none. */
    async transcript(): Promise<{ name: string; content: string } | undefined> {
      const s = store.getState().session
      if (!s) return void store.notify("No session to export")
      const all = await api.messages(s.id).catch((e) => (fail("Export")(e), undefined))
      return all ? { name: `${s.slug || s.id}.md`, content: toMarkdown(s, all) } : undefined
    },
    async exportSession() {
      const s = store.getState().session
      if (!s) return store.notify("No session to export")
      const all = await api.messages(s.id).catch((e) => (fail("Export")(e), undefined))
      if (!all) return
      const content = toMarkdown(s, all)
      if (!opts.writeExport) return store.print({ kind: "notice", key: `export:${Date.now()}`, text: content, tone: "markdown" })
      const where = await opts.writeExport(`${s.slug || s.id}.md`, content).catch((e) => (fail("Export")(e), undefined))
      if (where) store.print({ kind: "notice", key: `export:${Date.now()}`, text: `Exported to ${where}`, tone: "info" })
    },
    /** `/children`: the open session's subagent sessions, with their state, for the picker; empty (with a notice) when none. */
    async children(): Promise<{ label: string; detail?: string; value: string }[]> {
      const open = store.getState().session
      if (!open) return (store.notify("No session is open"), [])
      const list = await api.children(open.id).catch((e) => (fail("Subagent sessions")(e), undefined))
      if (!list) return []
      if (!list.length) return (store.notify("This session started no subagent sessions"), [])
      const state = (id: string) => {
        const s = store.statusOf(id)
        return !s || s.type === "idle" ? "idle" : s.type === "retry" ? "retrying" : "working"
      }
      return list.map((c) => ({ label: c.title, detail: state(c.id), value: c.id }))
    },
    /** `/parent`: back to the session that started the open one. */
    async parent() {
      const parentID = store.getState().session?.parentID
      if (!parentID) return store.notify("This is not a subagent's session: /children lists those this one started")
      await openSession(parentID).catch(fail("Opening the parent session"))
    },
    async sessions(search?: string) {
      return api.sessions(search ? { search } : {})
    },
    /** Deletes through the API; false (with a notice) when the server refused. */
    async deleteSession(id: string): Promise<boolean> {
      const ok = await api.deleteSession(id).then(
        () => true,
        (e) => (fail("Delete")(e), false),
      )
      if (!ok) return false
      store.set({ sessions: store.getState().sessions.filter((x) => x.id !== id) })
      if (store.getState().session?.id === id) store.home()
      return true
    },
    replyPermission(requestID: string, reply: PermissionReply, message?: string) {
      store.set({ permissions: store.getState().permissions.filter((p) => p.id !== requestID) })
      api.replyPermission(requestID, reply, message).catch(fail("Permission reply"))
    },
    answerQuestion(requestID: string, answers: string[][] | undefined) {
      store.set({ questions: store.getState().questions.filter((q) => q.id !== requestID) })
      const call = answers ? api.replyQuestion(requestID, answers) : api.rejectQuestion(requestID)
      call.catch(fail("Question"))
    },
    /**
     * Asks once per launch, when the folder's config holds something back: the dialog shows
     * (store.trust) and this resolves when the user has answered, at once when there is nothing
     * to ask or the server has no trust route.
     */
    async askTrust(): Promise<void> {
      const status = await api.trust().catch(() => undefined)
      lastTrust = JSON.stringify(status?.ignored ?? [])
      if (!status || !needsTrust(status)) return
      store.set({ trust: status })
      return new Promise<void>((resolve) => (trustAnswered = resolve))
    },
    /** `/status`: what extends this project (plugins, custom tools, command hooks, MCP servers) and what failed. */
    async status() {
      const [plugins, mcp] = await Promise.all([api.plugins().catch(() => undefined), api.mcp().catch(() => undefined)])
      store.print({ kind: "notice", key: `status:${Date.now()}`, text: statusText(plugins, mcp), tone: "markdown" })
    },
    /**
     * The core dropped the project's App (a config reload, /trust, PATCH /config): the agents,
     * commands and default model are read again, and a folder whose config now holds
     * something else back than before is asked about again.
     */
    async reloaded() {
      await loadBasics().catch(fail("Reloading"))
      const status = await api.trust().catch(() => undefined)
      if (!status) return
      const before = lastTrust
      lastTrust = JSON.stringify(status.ignored)
      if (needsTrust(status) && lastTrust !== before && !store.getState().trust) store.set({ trust: status })
    },
    /**
     * The event stream could not replay what it missed (`server.resync`: the log dropped it):
     * the open session is read again when it is one of `sessions` (all when undefined).
     */
    async resync(sessions?: string[]) {
      const id = store.getState().session?.id
      if (!id || (sessions && !sessions.includes(id))) return
      await openSession(id).catch(fail("Reload"))
    },
    /** `/heap`: a V8 heap snapshot of the core, written on its machine; prints where. */
    async heapSnapshot() {
      store.notify("Writing a heap snapshot of the core…")
      const info = await api.heap().catch((e) => (fail("Heap snapshot")(e), undefined))
      if (!info) return
      const mb = (info.bytes / 1_048_576).toFixed(1)
      store.print({ kind: "notice", key: `heap:${Date.now()}`, text: `Heap snapshot of the core (pid ${info.pid}, thread ${info.threadId}, ${mb} MB): ${info.path}`, tone: "info" })
      store.notify("Heap snapshot written")
    },
    /** `/trust`: shows the dialog again with what the config asks for now. */
    async reviewTrust() {
      const status = await api.trust().catch((e) => (fail("Trust")(e), undefined))
      if (!status) return
      if (status.trusted) return store.notify(status.source === "flag" ? "This folder's config applies in full this time (--trust or WRIGHT_TRUST)" : "This folder is trusted: its config applies in full")
      if (!needsTrust(status)) return store.notify("This folder's config asks for nothing that needs trust")
      if (store.getState().busy) return store.notify("A step is running: /trust once it is done (trusting reloads the project)", "error")
      store.set({ trust: status })
    },
    /** Trusts the folder: the core reloads the project with its full config (MCP servers start, …). */
    async grantTrust() {
      store.set({ trust: undefined })
      // Reloading disposes the project's App, which would interrupt a running step.
      if (store.getState().busy) {
        askedTrust()
        return store.notify("A step is running: /trust once it is done (trusting reloads the project)", "error")
      }
      store.notify("Trusting this folder…")
      const status = await api.grantTrust().catch((e) => (fail("Trust")(e), undefined))
      if (status?.trusted) {
        store.print({ kind: "notice", key: `trust:${Date.now()}`, text: `Trusted ${status.directory}: its config applies in full (wright trust --revoke undoes it).`, tone: "info" })
        store.notify("Trusted this folder")
        // The reloaded project may bring agents, commands and models of its own.
        await loadBasics().catch(fail("Loading"))
      } else if (status) store.notify("The folder's config changed meanwhile; /trust shows what it asks for now", "error")
      askedTrust()
    },
    /** Leaves the folder's config held back for this launch. */
    keepHeldBack() {
      askedTrust()
      store.print({ kind: "notice", key: `trust:${Date.now()}`, text: "This folder's config stays held back; /trust trusts it later.", tone: "dim" })
    },
    async completeFiles(query: string) {
      const [files] = await Promise.all([api.findFiles(query).catch(() => [] as string[]), loadResources()])
      const q = query.toLowerCase()
      const matching = Object.keys(resources).filter((k) => k.toLowerCase().includes(q)).slice(0, 5)
      return [...files, ...matching]
    },
  }
}

export type Controller = ReturnType<typeof createController>

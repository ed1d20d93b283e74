/** @jsxImportSource preact */
// The page: the session list of every project (a navigation region "Sessions"), the open
// session's conversation, its pending permission asks and questions, queued prompts, the
// composer with the model, agent and variant pickers and `@` file mentions, and the review
// panel of changed files. On a phone the list is a drawer and the composer stays at the
// bottom of the screen.
import { useEffect, useReducer, useRef, useState } from "preact/hooks"
import type { PartInput, PermissionRequest, QuestionRequest } from "../../protocol"
import { isBusy } from "../../sdk"
import type { Store } from "../store"
import { Conversation } from "./conversation"
import { Diff } from "./parts"

const base = (dir: string) => dir.split("/").filter(Boolean).pop() ?? dir

export function App({ store }: { store: Store }) {
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  useEffect(() => store.subscribe(() => rerender(0)), [])
  const [drawer, setDrawer] = useState(false)
  const [review, setReview] = useState(false)
  const { state, ui } = store
  const open = ui.open
  const session = open ? state.sessions.get(open) : undefined
  return (
    <div class={`shell${drawer ? " drawer-open" : ""}${review ? " review-open" : ""}`}>
      <header class="top">
        <button class="menu" aria-label="Sessions list" aria-expanded={drawer} onClick={() => setDrawer(!drawer)}>
          ☰
        </button>
        <h1>{session?.info.title ?? "wright"}</h1>
        <span class={`dot ${ui.connected ? "on" : "off"}`} title={ui.connected ? "connected" : "reconnecting"} aria-label={ui.connected ? "connected" : "reconnecting"} />
        {open ? (
          <button aria-pressed={review} onClick={() => setReview(!review)}>
            Changes{state.diffs.get(open)?.length ? ` (${state.diffs.get(open)!.length})` : ""}
          </button>
        ) : null}
        <NotifyButton />
      </header>
      <SessionList store={store} onPick={() => setDrawer(false)} />
      <main class="main">
        {ui.error ? (
          <div class="banner" role="alert">
            {ui.error} <button onClick={() => ((ui.error = undefined), store.notify())}>Dismiss</button>
          </div>
        ) : null}
        {open ? <SessionView store={store} sessionID={open} /> : <p class="empty">Pick a session, or start one from the list.</p>}
      </main>
      {open && review ? <Review store={store} sessionID={open} /> : null}
    </div>
  )
}

function NotifyButton() {
  const [perm, setPerm] = useState(typeof Notification === "undefined" ? "denied" : Notification.permission)
  if (perm !== "default") return null
  return <button onClick={() => Notification.requestPermission().then(setPerm)}>Notify me</button>
}

function SessionList({ store, onPick }: { store: Store; onPick: () => void }) {
  const { state, ui } = store
  const byProject = new Map<string, { id: string; title: string; updated: number }[]>(ui.projects.map((d) => [d, []]))
  for (const { info, directory } of state.sessions.values()) {
    if (info.parentID) continue
    const list = byProject.get(directory) ?? []
    list.push({ id: info.id, title: info.title, updated: info.time.updated })
    byProject.set(directory, list)
  }
  return (
    <nav class="sessions" aria-label="Sessions">
      {[...byProject].map(([directory, list]) => (
        <section key={directory}>
          <h2 title={directory}>
            {base(directory)}
            <button class="new" aria-label={`New session in ${base(directory)}`} onClick={() => store.create(directory).then(onPick)}>
              +
            </button>
          </h2>
          <ul>
            {list
              .sort((a, b) => b.updated - a.updated)
              .map((s) => (
                <li key={s.id}>
                  <a
                    href={`#${s.id}`}
                    aria-current={ui.open === s.id ? "page" : undefined}
                    onClick={(e) => {
                      e.preventDefault()
                      history.replaceState(null, "", `#${s.id}`)
                      store.open(s.id)
                      onPick()
                    }}
                  >
                    {isBusy(state, s.id) ? <span class="busy" aria-label="working">◐ </span> : null}
                    {[...state.permissions.values(), ...state.questions.values()].some((p) => p.sessionID === s.id) ? <span class="ask" aria-label="needs input">● </span> : null}
                    {s.title}
                  </a>
                </li>
              ))}
          </ul>
        </section>
      ))}
    </nav>
  )
}

function SessionView({ store, sessionID }: { store: Store; sessionID: string }) {
  const { state } = store
  const messages = state.messages.get(sessionID) ?? []
  const busy = isBusy(state, sessionID)
  const permissions = [...state.permissions.values()].filter((p) => p.sessionID === sessionID)
  const questions = [...state.questions.values()].filter((q) => q.sessionID === sessionID)
  const queued = store.queued(sessionID)
  const info = state.sessions.get(sessionID)?.info
  return (
    <>
      <Conversation messages={messages} revertedFrom={info?.revert?.messageID} />
      <div class="dock">
        {permissions.map((p) => (
          <PermissionCard key={p.id} store={store} request={p} />
        ))}
        {questions.map((q) => (
          <QuestionCard key={q.id} store={store} request={q} />
        ))}
        {queued.length ? (
          <ul class="queued" aria-label="Queued prompts">
            {queued.map((q, i) => (
              <li key={i}>Queued: {q}</li>
            ))}
          </ul>
        ) : null}
        <Composer store={store} sessionID={sessionID} busy={busy} canRedo={!!info?.revert} />
      </div>
    </>
  )
}

function PermissionCard({ store, request }: { store: Store; request: PermissionRequest }) {
  const diff = typeof request.metadata.diff === "string" ? request.metadata.diff : undefined
  const what = typeof request.metadata.command === "string" ? request.metadata.command : request.patterns.join(", ")
  return (
    <section class="card permission" role="alertdialog" aria-label={`Permission: ${request.permission}`}>
      <p>
        <strong>Allow {request.permission}</strong> <code>{what}</code>?
      </p>
      {diff ? <Diff diff={diff} /> : null}
      <div class="buttons">
        <button class="primary" onClick={() => store.permission(request.id, "once")}>
          Allow once
        </button>
        <button onClick={() => store.permission(request.id, "always")}>Allow always</button>
        <button class="danger" onClick={() => store.permission(request.id, "reject")}>
          Reject
        </button>
      </div>
    </section>
  )
}

function QuestionCard({ store, request }: { store: Store; request: QuestionRequest }) {
  const [answers, setAnswers] = useState<string[][]>(() => request.questions.map(() => []))
  const toggle = (i: number, label: string, multiple?: boolean) =>
    setAnswers(answers.map((a, j) => (j !== i ? a : multiple ? (a.includes(label) ? a.filter((x) => x !== label) : [...a, label]) : [label])))
  return (
    <section class="card question" role="alertdialog" aria-label="Question">
      {request.questions.map((q, i) => (
        <fieldset key={i}>
          <legend>{q.question}</legend>
          {q.options.map((o) => (
            <label key={o.label}>
              <input type={q.multiple ? "checkbox" : "radio"} name={`${request.id}-${i}`} checked={answers[i]!.includes(o.label)} onChange={() => toggle(i, o.label, q.multiple)} /> {o.label}
              {o.description ? <small> — {o.description}</small> : null}
            </label>
          ))}
          <input aria-label="Your own answer" placeholder="Or type your own answer" onInput={(e) => setAnswers(answers.map((a, j) => (j === i ? [(e.target as HTMLInputElement).value] : a)))} />
        </fieldset>
      ))}
      <div class="buttons">
        <button class="primary" onClick={() => store.answer(request.id, answers)}>
          Answer
        </button>
        <button onClick={() => store.answer(request.id, undefined)}>Dismiss</button>
      </div>
    </section>
  )
}

function Composer({ store, sessionID, busy, canRedo }: { store: Store; sessionID: string; busy: boolean; canRedo: boolean }) {
  const [text, setText] = useState("")
  const [mentions, setMentions] = useState<string[]>([])
  const [active, setActive] = useState(0)
  const box = useRef<HTMLTextAreaElement>(null)
  // Answers of file searches arrive out of order: only the newest query's may open the list.
  const asked = useRef(0)
  const { ui } = store

  const mentionAt = (value: string, caret: number) => /(?:^|\s)@([^\s@]*)$/.exec(value.slice(0, caret))
  async function onInput(e: Event) {
    const el = e.target as HTMLTextAreaElement
    setText(el.value)
    const m = mentionAt(el.value, el.selectionStart)
    setActive(0)
    const n = ++asked.current
    const found = m ? await store.findFiles(sessionID, m[1]!) : []
    if (n === asked.current) setMentions(found)
  }
  function pick(file: string) {
    const el = box.current!
    const caret = el.selectionStart
    const m = mentionAt(text, caret)!
    const next = `${text.slice(0, caret - m[1]!.length)}${file} ${text.slice(caret)}`
    setText(next)
    setMentions([])
    el.focus()
  }
  async function send() {
    const body = text.trim()
    if (!body) return
    const dir = store.directoryOf(sessionID)
    const files = [...new Set([...body.matchAll(/(?:^|\s)@([^\s@]+)/g)].map((m) => m[1]!))].filter((f) => !f.endsWith("/"))
    const parts: PartInput[] = [
      { type: "text", text: body },
      ...files.map((f): PartInput => ({ type: "file", mime: "text/plain", filename: f, url: `file://${dir}/${f}` })),
    ]
    setText("")
    asked.current++
    setMentions([])
    await store.send(sessionID, parts).catch((e) => {
      setText(body)
      ui.error = `Send: ${(e as Error).message}`
      store.notify()
    })
  }
  function onKey(e: KeyboardEvent) {
    if (mentions.length) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault()
        setActive((active + (e.key === "ArrowDown" ? 1 : mentions.length - 1)) % mentions.length)
        return
      }
      if (e.key === "Enter" || e.key === "Tab") {
        e.preventDefault()
        return pick(mentions[active]!)
      }
      if (e.key === "Escape") {
        asked.current++
        return setMentions([])
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault()
      send()
    }
  }

  const providers = ui.providers?.providers ?? []
  const model = ui.choice.model ? `${ui.choice.model.providerID}/${ui.choice.model.modelID}` : ""
  const modelInfo = ui.choice.model ? providers.find((p) => p.id === ui.choice.model!.providerID)?.models[ui.choice.model.modelID] : undefined
  const variants = Object.keys(modelInfo?.variants ?? {})
  const set = (patch: Partial<typeof ui.choice>) => ((ui.choice = { ...ui.choice, ...patch }), store.notify())
  return (
    <div class="composer">
      {mentions.length ? (
        <ul class="mentions" role="listbox" aria-label="Files">
          {mentions.map((f, i) => (
            <li key={f} role="option" aria-selected={i === active} onMouseDown={(e) => (e.preventDefault(), pick(f))}>
              {f}
            </li>
          ))}
        </ul>
      ) : null}
      <textarea ref={box} aria-label="Prompt" placeholder={busy ? "Queue a message… (@ for files)" : "Ask wright… (@ for files)"} rows={2} value={text} onInput={onInput} onKeyDown={onKey} />
      <div class="controls">
        <select aria-label="Model" value={model} onChange={(e) => {
          const [providerID, ...rest] = (e.target as HTMLSelectElement).value.split("/")
          set({ model: providerID ? { providerID, modelID: rest.join("/") } : undefined, variant: undefined })
        }}>
          <option value="">{ui.providers?.model ? `Default (${ui.providers.model})` : "Default model"}</option>
          {providers.flatMap((p) =>
            Object.values(p.models).map((m) => (
              <option key={`${p.id}/${m.id}`} value={`${p.id}/${m.id}`}>
                {p.name}: {m.name}
              </option>
            )),
          )}
        </select>
        <select aria-label="Agent" value={ui.choice.agent ?? ""} onChange={(e) => set({ agent: (e.target as HTMLSelectElement).value || undefined })}>
          <option value="">Default agent</option>
          {ui.agents.map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
        {variants.length ? (
          <select aria-label="Variant" value={ui.choice.variant ?? ""} onChange={(e) => set({ variant: (e.target as HTMLSelectElement).value || undefined })}>
            <option value="">Default variant</option>
            {variants.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        ) : null}
        <span class="spacer" />
        <button onClick={() => store.undo(sessionID)} disabled={busy}>
          Undo
        </button>
        {canRedo ? (
          <button onClick={() => store.redo(sessionID)} disabled={busy}>
            Redo
          </button>
        ) : null}
        {busy ? (
          <button class="danger" onClick={() => store.stop(sessionID)}>
            Stop
          </button>
        ) : null}
        <button class="primary" onClick={send} disabled={!text.trim()}>
          Send
        </button>
      </div>
    </div>
  )
}

function Review({ store, sessionID }: { store: Store; sessionID: string }) {
  const diffs = store.state.diffs.get(sessionID) ?? []
  return (
    <aside class="review" aria-label="Changes">
      <h2>Changed files</h2>
      {diffs.length === 0 ? <p class="empty">No changes yet.</p> : null}
      {diffs.map((d) => (
        <details key={d.file} open={diffs.length <= 3}>
          <summary>
            {d.file} <span class="add">+{d.additions}</span> <span class="del">-{d.deletions}</span>
          </summary>
          <Diff diff={lineDiff(d.before, d.after)} />
        </details>
      ))}
    </aside>
  )
}

/** A plain line diff of before/after for the review panel (whole-file, common prefix and suffix kept as context). */
function lineDiff(before: string, after: string): string {
  const a = before.split("\n")
  const b = after.split("\n")
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let end = 0
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
  const ctx = 3
  const out = [`@@ -${start + 1} +${start + 1} @@`]
  for (const l of a.slice(Math.max(0, start - ctx), start)) out.push(` ${l}`)
  for (const l of a.slice(start, a.length - end)) out.push(`-${l}`)
  for (const l of b.slice(start, b.length - end)) out.push(`+${l}`)
  for (const l of a.slice(a.length - end, a.length - end + ctx)) out.push(` ${l}`)
  return out.join("\n")
}

// The home screen's session list as the App holds it: which sessions it shows (the loaded ones
// that match what is typed, plus older ones the server's search found), the search itself, and
// what its keys do (home.ts decides what a key means; this carries it out). Separate so the
// App keeps only the routing to it.
import { useEffect, useMemo, useRef } from "react"
import type { Session } from "../protocol"
import type { AppHost, Ui } from "./app-state"
import type { Controller } from "./controller"
import { homeKey, homeMatches } from "./home"
import type { Key } from "./keys"

export interface HomeList {
  items: Session[]
  /** The items of the latest render, for key handlers. */
  itemsRef: { readonly current: Session[] }
  /** The server's search for the filter has not answered yet. */
  searching: boolean
}

export function useHomeList(ui: Ui, uiRef: { readonly current: Ui }, setUi: AppHost["setUi"], sessions: Session[], route: string, controller: Pick<Controller, "sessions">): HomeList {
  const filter = ui.home?.filter ?? ""
  const items: Session[] = useMemo(() => {
    const local = homeMatches(sessions, filter)
    if (!filter || ui.homeFound.query !== filter) return local
    const seen = new Set(local.map((s) => s.id))
    return [...local, ...ui.homeFound.items.filter((s) => !seen.has(s.id) && !s.parentID)].sort((a, b) => b.time.updated - a.time.updated)
  }, [sessions, filter, ui.homeFound])
  const itemsRef = useRef(items)
  itemsRef.current = items
  // Leaving home (a session opened) leaves the list too: /new comes back to the prompt.
  useEffect(() => {
    if (route !== "home" && uiRef.current.home) setUi({ home: undefined })
  }, [route])
  useEffect(() => {
    if (!filter) return
    const query = filter
    const t = setTimeout(() => {
      controller.sessions(query).then(
        (items) => setUi({ homeFound: { query, items } }),
        () => {},
      )
    }, 150)
    return () => clearTimeout(t)
  }, [filter])
  return { items, itemsRef, searching: !!filter && ui.homeFound.query !== filter }
}

/** A key while the list has them: move, search, open a session, or delete one. */
export function homeListKey(host: AppHost, key: Key) {
  const { store, controller, setUi } = host
  const items = host.homeItems()
  const [next, action] = homeKey(host.ui().home!, items, key)
  setUi({ home: next })
  if (action.type === "open") {
    setUi({ home: undefined })
    return void controller.openSession(action.id)
  }
  if (action.type === "delete") {
    const gone = items.find((x) => x.id === action.id)
    setUi({ homeFound: { ...host.ui().homeFound, items: host.ui().homeFound.items.filter((x) => x.id !== action.id) } })
    return void controller.deleteSession(action.id).then((deleted) => {
      if (!deleted) return
      const h = host.ui().home
      // The row below takes the deleted one's place; the last row's neighbour is above it.
      if (h) setUi({ home: { ...h, selected: Math.max(0, Math.min(h.selected, items.length - 2)) } })
      if (gone) store.notify(`Deleted “${gone.title}”`)
    })
  }
}

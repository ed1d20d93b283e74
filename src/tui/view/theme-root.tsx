import type { ReactNode } from "react"
import { useSyncExternalStore } from "react"
import { ThemeContext } from "../theme"
import type { ThemeControl } from "../ui-settings"

/** Gives the views the current theme; a `/themes` preview redraws the live region in it. */
export function ThemeRoot(props: { themes: ThemeControl; children: ReactNode }) {
  const theme = useSyncExternalStore(props.themes.subscribe, props.themes.get)
  return <ThemeContext.Provider value={theme}>{props.children}</ThemeContext.Provider>
}

/** @jsxImportSource preact */
// The browser UI's entry (bundled by scripts/build.mjs into dist/web/app.js).
import { render } from "preact"
import { createStore } from "./store"
import { App } from "./view/app"

const store = createStore()
render(<App store={store} />, document.getElementById("app")!)
store.start().then(() => {
  const id = location.hash.slice(1)
  if (id && store.state.sessions.has(id)) store.open(id)
})

import { lines, snip, type EditCase } from "../case"

const server = lines(
  'import express from "express"',
  "",
  "const app = express()",
  "const PORT = 3000",
  "",
  'app.get("/health", (_req, res) => {',
  '  res.json({ ok: true })',
  "})",
  "",
  "app.listen(PORT, () => {",
  "  console.log(`listening on ${PORT}`)",
  "})",
)

export const cases: EditCase[] = [
  {
    name: "exact: one-line change",
    file: server,
    oldString: "const PORT = 3000",
    newString: "const PORT = Number(process.env.PORT ?? 3000)",
    expect: { text: server.replace("const PORT = 3000", "const PORT = Number(process.env.PORT ?? 3000)") },
  },
  {
    name: "exact: multi-line block with template literal",
    file: server,
    oldString: snip("app.listen(PORT, () => {", "  console.log(`listening on ${PORT}`)", "})"),
    newString: snip("const server = app.listen(PORT, () => {", "  console.log(`listening on ${PORT}`)", "})", 'process.on("SIGTERM", () => server.close())'),
    expect: {
      text: server.replace(
        "app.listen(PORT, () => {\n  console.log(`listening on ${PORT}`)\n})",
        'const server = app.listen(PORT, () => {\n  console.log(`listening on ${PORT}`)\n})\nprocess.on("SIGTERM", () => server.close())',
      ),
    },
  },
  {
    name: "exact: insert a route after an anchor line",
    file: server,
    oldString: snip('  res.json({ ok: true })', "})"),
    newString: snip('  res.json({ ok: true })', "})", "", 'app.get("/version", (_req, res) => {', '  res.json({ version: "1.0.0" })', "})"),
    expect: {
      text: server.replace(
        '  res.json({ ok: true })\n})\n',
        '  res.json({ ok: true })\n})\n\napp.get("/version", (_req, res) => {\n  res.json({ version: "1.0.0" })\n})\n',
      ),
    },
  },
  {
    name: "exact: delete a block including its trailing newline",
    file: lines("a = 1", "# TODO remove", "debug = True", "b = 2"),
    oldString: "# TODO remove\ndebug = True\n",
    newString: "",
    expect: { text: lines("a = 1", "b = 2") },
  },
  {
    name: "exact: same text twice but oldString includes the distinguishing line",
    file: lines("[server]", "port = 8080", "", "[metrics]", "port = 8080"),
    oldString: snip("[metrics]", "port = 8080"),
    newString: snip("[metrics]", "port = 9090"),
    expect: { text: lines("[server]", "port = 8080", "", "[metrics]", "port = 9090") },
  },
  {
    name: "exact: regex metacharacters in oldString are literal",
    file: lines('const re = /^(\\d+)\\.(\\d+)$/', "const s = '$1.$2'"),
    oldString: "const re = /^(\\d+)\\.(\\d+)$/",
    newString: "const re = /^(\\d+)\\.(\\d+)\\.(\\d+)$/",
    expect: { text: lines('const re = /^(\\d+)\\.(\\d+)\\.(\\d+)$/', "const s = '$1.$2'") },
  },
]

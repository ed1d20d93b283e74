import { lines, snip, type EditCase } from "../case"

// The same code written over a different number of lines in oldString and in the file (a
// block on one line against its multi-line form, statements joined or split, a brace moved),
// while some other stale line makes both sides the same length. The block matchers then paired
// the lines one to one: the loop's body was replaced by the next statement, or its closing
// brace by a call, and the edit reported success. Every such edit must be refused.

const loop = lines(
  "function total(items) {",
  "  let sum = 0",
  "  for (const item of items) {",
  "    sum += item.price",
  "  }",
  "  return sum",
  "}",
)
/** A stale version of `loop`: the loop on one line, and two lines the file no longer has. */
const staleLoop = snip(
  "function total(items) {",
  "  let sum = 0",
  "  for (const item of items) { sum += item.price }",
  "  const tax = sum * 0.2",
  "  log(sum)",
  "  return sum",
  "}",
)

const oneLineLoop = lines(
  "function total(items) {",
  "  let sum = 0",
  "  for (const item of items) { sum += item.price }",
  "  audit(sum)",
  "  notify(sum)",
  "  return sum",
  "}",
)
const spreadLoop = snip(
  "function total(items) {",
  "  let sum = 0",
  "  for (const item of items) {",
  "    sum += item.price",
  "  }",
  "  return sum",
  "}",
)

const py = lines(
  "def total(items):",
  "    s = 0",
  "    for x in items:",
  "        s += x.price",
  "    return s",
)
const pyOld = snip("def total(items):", "    s = 0", "    for x in items: s += x.price", "    log(s)", "    return s")

const stmts = lines("function reset() {", "  a = 1", "  b = 2", "  flush()", "}")
const stmtsOld = snip("function reset() {", "  a = 1; b = 2", "  check()", "  flush()", "}")

const split = lines("function cost(price, qty) {", "  const total = price * qty", "  audit(total)", "  return total", "}")
const splitOld = snip("function cost(price, qty) {", "  const total = price *", "    qty", "  return total", "}")

const allman = lines("function guard(ok) {", "  if (ok)", "  {", "    run()", "  }", "  done()", "}")
const allmanOld = snip("function guard(ok) {", "  if (ok) {", "    prepare()", "    run()", "  }", "  done()", "}")

const call = lines("function send(msg) {", "  transport.write(", "    encode(msg),", "  )", "  flushed = true", "}")
const callOld = snip("function send(msg) {", "  transport.write(encode(msg))", "  retries = 0", "  queued = false", "  flushed = true", "}")

const doc = lines("/**", " * @example", " * import { Hono } from 'hono'", " *", " * const app = new Hono()", " *", " * app.get('/', handler)", " */")
const docOld = snip("/**", " * @example", " * import { Hono } from 'hono'", " *; * const app = new Hono()", " * staleLine()", " *", " * app.get('/', handler)", " */")

const retry = lines("async function run(ctx) {", "  let response", "  try {", "    response = await middleware(ctx, async () => {", "      try {", "        ctx.res = await next()", "      } catch (error) {", "        fail(error)", "      }", "    })", "  } finally {", "    done()", "  }", "}")
const retryOld = snip("async function run(ctx) {", "  let response", "  try", "  {", "      try {", "        ctx.res = await next()", "      } catch (error) {", "        fail(error)", "      }", "    })", "  } finally {", "    done()", "  }", "}")

export const cases: EditCase[] = [
  {
    name: "reflow: a loop on one line in a stale oldString, on three in the file, edited below it: refused",
    file: loop,
    oldString: staleLoop,
    newString: staleLoop.replace("log(sum)", "log(sum, tax)"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: a loop on one line in a stale oldString, on three in the file, the next statement edited: refused (the body is not replaced)",
    file: loop,
    oldString: staleLoop,
    newString: staleLoop.replace("sum * 0.2", "sum * 0.25"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: a loop on three lines in oldString, on one in the file, with two lines the model never saw: refused",
    file: oneLineLoop,
    oldString: spreadLoop,
    newString: spreadLoop.replace("    sum += item.price", "    sum += item.price * item.qty"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: a Python loop on one line in oldString, on two in the file: refused",
    file: py,
    oldString: pyOld,
    newString: pyOld.replace("log(s)", "log(s, items)"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: two statements joined on one line in oldString, on two in the file: refused",
    file: stmts,
    oldString: stmtsOld,
    newString: stmtsOld.replace("check()", "check(true)"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: a statement split over two lines in oldString, on one in the file: refused",
    file: split,
    oldString: splitOld,
    newString: splitOld.replace("    qty", "    qty * 2"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: a brace on its own line in the file, on the if line in oldString: refused",
    file: allman,
    oldString: allmanOld,
    newString: allmanOld.replace("prepare()", "prepare(ok)"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: a call on one line in oldString, over three in the file: refused",
    file: call,
    oldString: callOld,
    newString: callOld.replace("retries = 0", "retries = 3"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: two comment lines joined, where the bare ` *` between them could pair with either ` *` of the file: refused",
    file: doc,
    oldString: docOld,
    newString: docOld.replace(" *; * const app = new Hono()", " *; * const app = new Hono({ strict: false })"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: `try` and `{` on two lines in oldString, `try {` in the file, with a later `try {` to pair by chance: refused",
    file: retry,
    oldString: retryOld,
    newString: retryOld.replace("ctx.res = await next()", "ctx.res = await next(ctx)"),
    expect: { error: "not-found" },
  },
  {
    name: "reflow: a line the file dropped and one it gained on either side of an unrelated line still applies",
    file: lines("function setup() {", "  load()", "  start()", "  watch()", "  report()", "}"),
    oldString: snip("function setup() {", "  load()", "  prepare()", "  start()", "  report()", "}"),
    newString: snip("function setup() {", "  load()", "  prepare()", "  start(true)", "  report()", "}"),
    expect: { text: lines("function setup() {", "  load()", "  start(true)", "  watch()", "  report()", "}") },
  },
  {
    name: "reflow: a stale line inside a multi-line loop, written alike on both sides, still applies",
    file: loop,
    oldString: snip("  let sum = 0", "  for (const item of items) {", "    sum += item.cost", "  }", "  return sum"),
    newString: snip("  let sum = 0", "  for (const item of items) {", "    sum += item.cost", "  }", "  return Math.round(sum)"),
    expect: { text: loop.replace("  return sum", "  return Math.round(sum)") },
  },
  {
    name: "reflow: a stale line whose string holds a brace the file's does not still applies",
    file: lines("function label(n) {", '  const open = "<"', "  const close = pad(n)", "  return open + close", "}"),
    oldString: snip("function label(n) {", '  const open = "{"', "  const close = pad(n)", "  return open + close", "}"),
    newString: snip("function label(n) {", '  const open = "{"', "  const close = pad(n, 2)", "  return open + close", "}"),
    expect: { text: lines("function label(n) {", '  const open = "<"', "  const close = pad(n, 2)", "  return open + close", "}") },
  },
]

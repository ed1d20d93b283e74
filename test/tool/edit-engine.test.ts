import { describe, expect, test } from "vitest"
import { runEditFuzz } from "../../bench/edit/fuzz"
import { runEditBench } from "../../bench/edit/run"
import { applyEdit, EditError } from "../../src/tool/edit/engine"

function refusal(fn: () => unknown): EditError {
  try {
    fn()
  } catch (e) {
    if (e instanceof EditError) return e
    throw e
  }
  throw new Error("expected an EditError, but the edit applied")
}

const ts = [
  "export function total(items: Item[]): number {",
  "  let sum = 0",
  "  for (const item of items) {",
  "    sum += item.price",
  "  }",
  "  return sum",
  "}",
  "",
].join("\n")

describe("edit engine - exact matches", () => {
  test("edit engine - replaces a unique exact span and reports the exact matcher", () => {
    const r = applyEdit(ts, "sum += item.price", "sum += item.price * item.qty")
    expect(r).toEqual({ text: ts.replace("sum += item.price", "sum += item.price * item.qty"), matcher: "exact", count: 1 })
  })

  test("edit engine - refuses two exact matches and names both lines", () => {
    const e = refusal(() => applyEdit("a()\nb()\na()\n", "a()", "c()"))
    expect(e.kind).toBe("multiple")
    expect(e.message).toContain("line 1, line 3")
    expect(e.message).toContain("replaceAll")
  })

  test("edit engine - replaceAll replaces every occurrence and counts them", () => {
    const r = applyEdit("a()\nb()\na()\n", "a()", "c()", true)
    expect(r.text).toBe("c()\nb()\nc()\n")
    expect(r.count).toBe(2)
  })

  test("edit engine - replaceAll does not replace overlapping occurrences twice", () => {
    expect(applyEdit("aaaa", "aa", "b", true)).toMatchObject({ text: "bb", count: 2 })
  })

  test("edit engine - overlapping occurrences count as ambiguous without replaceAll", () => {
    expect(refusal(() => applyEdit("aaa", "aa", "b")).kind).toBe("multiple")
  })
})

describe("edit engine - refusals", () => {
  test("edit engine - empty oldString is refused with a way forward", () => {
    const e = refusal(() => applyEdit("x", "", "y"))
    expect(e.kind).toBe("empty-old")
    expect(e.message).toMatch(/insert/)
  })

  test("edit engine - identical oldString and newString is no-change", () => {
    expect(refusal(() => applyEdit("x = 1\n", "x = 1", "x = 1")).kind).toBe("no-change")
  })

  test("edit engine - a fuzzy match that would change nothing is no-change", () => {
    const e = refusal(() => applyEdit("    x = 1\n", "x = 1  ", "x = 1"))
    expect(e.kind).toBe("no-change")
    expect(e.message).toContain("line 1")
  })

  test("edit engine - missing text is not-found and points at the line that differs", () => {
    const e = refusal(() => applyEdit(ts, "  let sum = 0\n  for (const entry of items) {", "x"))
    expect(e.kind).toBe("not-found")
    expect(e.message).toContain("The first line of oldString matches the file at line 2")
    expect(e.message).toContain('line 3 of the file is "for (const item of items) {"')
  })

  test("edit engine - not-found names the most similar line when nothing lines up", () => {
    const e = refusal(() => applyEdit(ts, "return summ;", "return 0"))
    expect(e.kind).toBe("not-found")
    expect(e.message).toContain('line 6: "return sum"')
  })

  test("edit engine - not-found for text that is nowhere says to check the file", () => {
    expect(refusal(() => applyEdit(ts, "zebra giraffe", "x")).message).toContain("right file")
  })

  test("edit engine - a span much larger than oldString is refused as too-large", () => {
    const file = `x =${" ".repeat(600)}1\ny = 2\n`
    const e = refusal(() => applyEdit(file, "x = 1\ny = 2", "x = 3\ny = 2"))
    expect(e.kind).toBe("too-large")
    expect(e.message).toContain("lines 1-2")
  })

  test("edit engine - whitespace-only oldString never matches fuzzily", () => {
    expect(refusal(() => applyEdit("a\n\nb\n\nc", "\n\n", "\n")).kind).toBe("multiple")
    expect(refusal(() => applyEdit("a\nb", "   ", "x")).kind).toBe("not-found")
  })
})

describe("edit engine - line ending and BOM", () => {
  test("edit engine - CRLF file stays CRLF when oldString and newString use LF", () => {
    const crlf = ts.replace(/\n/g, "\r\n")
    const r = applyEdit(crlf, "  let sum = 0\n  for", "  let sum = 0\n  // add up\n  for")
    expect(r.text).toBe(ts.replace("  let sum = 0\n", "  let sum = 0\n  // add up\n").replace(/\n/g, "\r\n"))
  })

  test("edit engine - CRLF oldString matches an LF file and the file stays LF", () => {
    const r = applyEdit(ts, "  }\r\n  return sum", "  }\r\n  return sum + 0")
    expect(r.text).toBe(ts.replace("return sum", "return sum + 0"))
    expect(r.text).not.toContain("\r")
  })

  test("edit engine - lines outside the edit keep their own endings in a mixed file", () => {
    const mixed = "a\r\nb\nc\r\nd\r\n"
    expect(applyEdit(mixed, "b", "B").text).toBe("a\r\nB\nc\r\nd\r\n")
    expect(applyEdit(mixed, "c\nd", "c\nx\nd").text).toBe("a\r\nb\nc\r\nx\r\nd\r\n")
  })

  test("edit engine - BOM is kept and a BOM pasted into oldString is ignored", () => {
    const bom = "\uFEFFname = 1\nother = 2\n"
    expect(applyEdit(bom, "name = 1", "name = 3").text).toBe("\uFEFFname = 3\nother = 2\n")
    expect(applyEdit(bom, "\uFEFFname = 1", "name = 4").text).toBe("\uFEFFname = 4\nother = 2\n")
  })

  test("edit engine - BOM and CRLF together survive a fuzzy match", () => {
    const file = "\uFEFFif (x) {\r\n\treturn 1;\r\n}\r\n"
    const r = applyEdit(file, "if (x) {\n    return 1;\n}", "if (x) {\n    return 2;\n}")
    expect(r.text).toBe("\uFEFFif (x) {\r\n\treturn 2;\r\n}\r\n")
  })
})

describe("edit engine - fallback matchers", () => {
  test("edit engine - trailing-whitespace: trailing spaces in the file or in oldString", () => {
    const file = "a = 1   \nb = 2\t\nc = 3\n"
    const r = applyEdit(file, "a = 1\nb = 2", "a = 1\nb = 5")
    expect(r.matcher).toBe("trailing-whitespace")
    expect(r.text).toBe("a = 1   \nb = 5\nc = 3\n")
    expect(applyEdit("x\ny\n", "x  \ny", "x  \nz").text).toBe("x\nz\n")
  })

  test("edit engine - indentation-flexible: shifted base indentation is re-applied to newString", () => {
    const r = applyEdit(ts, "for (const item of items) {\n  sum += item.price\n}", "for (const item of items) {\n  if (item.price) sum += item.price\n}")
    expect(r.matcher).toBe("indentation-flexible")
    expect(r.text).toBe(ts.replace("    sum += item.price", "    if (item.price) sum += item.price"))
  })

  test("edit engine - indentation-flexible: spaces in oldString, tabs in the file", () => {
    const file = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n"
    const r = applyEdit(file, "    if ok {\n        run()\n    }", "    if ok {\n        run()\n        stop()\n    }")
    expect(r.matcher).toBe("indentation-flexible")
    expect(r.text).toBe("func main() {\n\tif ok {\n\t\trun()\n\t\tstop()\n\t}\n}\n")
  })

  test("edit engine - indentation-flexible: 2-space oldString against a 4-space file", () => {
    const file = "def f():\n    if a:\n        b()\n"
    const r = applyEdit(file, "def f():\n  if a:\n    b()", "def f():\n  if a:\n    b()\n  c()")
    expect(r.text).toBe("def f():\n    if a:\n        b()\n    c()\n")
  })

  test("edit engine - indentation-flexible: newString already in the file's style is left alone", () => {
    const file = "class A:\n    def f(self):\n        return 1\n"
    const r = applyEdit(file, "def f(self):\n    return 1", "    def f(self):\n        return 2")
    expect(r.text).toBe("class A:\n    def f(self):\n        return 2\n")
  })

  test("edit engine - line-trimmed: a flattened block keeps the file's indentation", () => {
    const r = applyEdit(ts, "let sum = 0\nfor (const item of items) {\nsum += item.price", "let sum = 0\nfor (const item of items) {\nsum += item.cost")
    expect(r.matcher).toBe("line-trimmed")
    expect(r.text).toBe(ts.replace("item.price", "item.cost"))
  })

  test("edit engine - unicode-normalized: typographic quotes in the file, ASCII in oldString", () => {
    const file = "const msg = “Don’t panic”\nconst n = 1\n"
    const r = applyEdit(file, 'const msg = "Don\'t panic"\nconst n = 1', 'const msg = "Don\'t panic"\nconst n = 2')
    expect(r.matcher).toBe("unicode-normalized")
    expect(r.text).toBe("const msg = “Don’t panic”\nconst n = 2\n")
  })

  test("edit engine - unicode-normalized: typographic characters the model typed become ASCII", () => {
    const file = 'label = "a - b"\nx = 1\n'
    const r = applyEdit(file, "label = “a – b”", "label = “a – c”")
    expect(r.text).toBe('label = "a - c"\nx = 1\n')
  })

  test("edit engine - unicode-normalized: non-breaking spaces", () => {
    const r = applyEdit("let\u00A0x = 1;\n", "let x = 1;", "let x = 2;")
    expect(r.matcher).toBe("unicode-normalized")
    expect(r.text).toBe("let x = 2;\n")
  })

  test("edit engine - whitespace-normalized: different spacing inside a line", () => {
    const r = applyEdit("call(a,  b,c)\nnext()\n", "call(a, b, c)", "call(a, b, c, d)")
    expect(r.matcher).toBe("whitespace-normalized")
    expect(r.text).toBe("call(a, b, c, d)\nnext()\n")
  })

  test("edit engine - escape-normalized: \\n and \\\" written out", () => {
    const file = 'print("hi")\nprint("bye")\n'
    const r = applyEdit(file, 'print(\\"hi\\")\\nprint(\\"bye\\")', 'print(\\"hi\\")\\nprint(\\"ciao\\")')
    expect(r.matcher).toBe("escape-normalized/exact")
    expect(r.text).toBe('print("hi")\nprint("ciao")\n')
  })

  test("edit engine - escape-normalized: a real \\n inside a string literal survives", () => {
    const file = 'log("a\\n")\nlog(\'b\')\n'
    const r = applyEdit(file, "log(\\'b\\')", "log(\\'c\\')")
    expect(r.text).toBe('log("a\\n")\nlog(\'c\')\n')
  })

  test("edit engine - line-number-prefix: read-style prefixes are stripped from both strings", () => {
    const r = applyEdit(ts, "5:   }\n6:   return sum", "5:   }\n6:   return sum * 2")
    expect(r.matcher).toBe("line-number-prefix/exact")
    expect(r.text).toBe(ts.replace("return sum", "return sum * 2"))
  })

  test("edit engine - line-number-prefix: stale numbers and cat -n tabs still match", () => {
    const r = applyEdit(ts, "    40\t  let sum = 0\n    41\t  for (const item of items) {", "    40\t  let sum = 1\n    41\t  for (const item of items) {")
    expect(r.text).toBe(ts.replace("sum = 0", "sum = 1"))
  })

  test("edit engine - line-number-prefix: non-consecutive numbers are not treated as prefixes", () => {
    expect(refusal(() => applyEdit(ts, "2:   let sum = 0\n9:   for (const item of items) {", "x")).kind).toBe("not-found")
  })

  test("edit engine - trimmed-boundary: blank lines around oldString that the file lacks", () => {
    const r = applyEdit("a()\nb()\nc()\n", "\n\nb()\n\n", "\n\nB()\n\n")
    expect(r.matcher).toBe("trimmed-boundary/exact")
    expect(r.text).toBe("a()\nB()\nc()\n")
  })

  test("edit engine - block-anchor: a stale middle line keeps the file's current text", () => {
    const file = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n"
    const r = applyEdit(file, "def f():\n    a = 1\n    b = 20\n    c = 3\n    return a", "def f():\n    a = 1\n    b = 20\n    c = 4\n    return a")
    expect(r.matcher).toBe("block-anchor")
    expect(r.text).toBe("def f():\n    a = 1\n    b = 2\n    c = 4\n    return a\n")
  })

  test("edit engine - block-anchor: a line the model never saw is kept", () => {
    const file = "function g() {\n  one()\n  added()\n  two()\n  three()\n}\n"
    const r = applyEdit(file, "function g() {\n  one()\n  two()\n  three()\n}", "function g() {\n  one()\n  two()\n  four()\n}")
    expect(r.text).toBe("function g() {\n  one()\n  added()\n  two()\n  four()\n}\n")
  })

  test("edit engine - block-anchor: two similar blocks are refused, not guessed", () => {
    const file = "if (a) {\n  x = 1\n}\nif (a) {\n  x = 2\n}\n"
    const e = refusal(() => applyEdit(file, "if (a) {\n  x = 3\n}", "if (a) {\n  x = 4\n}"))
    expect(e.kind).toBe("multiple")
    expect(e.message).toContain("block-anchor")
  })

  test("edit engine - block-anchor: a middle that is mostly different is not a match", () => {
    const file = "start()\nalpha_beta_gamma()\nend()\n"
    expect(refusal(() => applyEdit(file, "start()\nzzzzzzzzqqqqqq()\nend()", "x")).kind).toBe("not-found")
  })

  test("edit engine - context-aware: half the middle lines equal is enough when similarity is low", () => {
    const file = "begin\n  keep_this_line()\n  completely_rewritten_by_someone_else(1, 2, 3)\nfinish\n"
    const r = applyEdit(file, "begin\n  keep_this_line()\n  x()\nfinish", "begin\n  keep_this_line()\n  y()\nfinish")
    expect(r.matcher).toBe("context-aware")
    expect(r.text).toBe("begin\n  keep_this_line()\n  y()\nfinish\n")
  })

  test("edit engine - partial first and last lines match mid-line", () => {
    const file = "const total = price + tax;\nconsole.log(total);\n"
    const r = applyEdit(file, "= price + tax;\n    console.log(total", "= price + tax + tip;\n    console.log(total")
    expect(r.text).toBe("const total = price + tax + tip;\nconsole.log(total);\n")
  })

  test("edit engine - a partial line must start on a word boundary", () => {
    const file = "maximum = 1\nnext()\n"
    expect(refusal(() => applyEdit(file, "mum = 1  \nnext()", "x")).kind).toBe("not-found")
  })

  test("edit engine - fuzzy matches found twice are refused", () => {
    const file = "  a()\n  b()\nx\n    a()\n    b()\n"
    const e = refusal(() => applyEdit(file, "a()\nb()", "c()"))
    expect(e.kind).toBe("multiple")
    expect(e.message).toContain("lines 1-2, lines 4-5")
  })

  test("edit engine - replaceAll with a fuzzy matcher replaces each place in its own indentation", () => {
    const file = "  a()\n  b()\nx\n    a()\n    b()\n"
    const r = applyEdit(file, "a()\nb()", "c()", true)
    expect(r.text).toBe("  c()\nx\n    c()\n")
    expect(r.count).toBe(2)
  })

  test("edit engine - oldString with a final newline at the end of a file without one", () => {
    const r = applyEdit("a\n  b", "a\nb\n", "a\nc\n")
    expect(r.text).toBe("a\n  c")
  })

  test("edit engine - empty newString deletes the matched lines, indentation included", () => {
    expect(applyEdit("a\n  b\nc\n", "b\n", "").text).toBe("a\nc\n")
    expect(applyEdit("a\n  b  \nc\n", "b\n", "").text).toBe("a\nc\n")
    expect(applyEdit("x = f(b)\n", "b", "").text).toBe("x = f()\n")
  })
})

describe("edit engine - merge with the file", () => {
  test("edit engine - a rewritten line keeps a Markdown hard break the model did not copy", () => {
    const r = applyEdit("Roses are red  \nViolets are blue  \nEnd\n", "Roses are red\nViolets are blue", "Roses are red\nViolets are violet")
    expect(r.text).toBe("Roses are red  \nViolets are violet  \nEnd\n")
  })

  test("edit engine - an elided '... existing code ...' line keeps the real line it stands for", () => {
    const file = "function main() {\n  setup()\n  run()\n  teardown()\n}\n"
    const r = applyEdit(file, "function main() {\n  setup()\n  // ... existing code ...\n  teardown()\n}", "function main() {\n  setup()\n  // ... existing code ...\n  teardown()\n  report()\n}")
    expect(r.text).toBe("function main() {\n  setup()\n  run()\n  teardown()\n  report()\n}\n")
  })

  test("edit engine - a long elided region is refused rather than overwritten", () => {
    const file = "function main() {\n  setup()\n  a()\n  b()\n  c()\n  d()\n  e()\n  teardown()\n}\n"
    const e = refusal(() => applyEdit(file, "function main() {\n  setup()\n  // ...\n  teardown()\n}", "function main() {\n  // ...\n}"))
    expect(e.kind).toBe("not-found")
  })
})

describe("edit engine - benchmark", () => {
  test("edit engine - every benchmark case passes and none edits the wrong span", () => {
    const r = runEditBench()
    expect(r.failures).toEqual([])
    expect(r.wrongSpan).toBe(0)
    expect(r.total).toBeGreaterThanOrEqual(60)
  })

  test("edit engine - the fuzzer's garbled edits, reflowed ones included (a block on one line, statements joined or split, a brace moved), never land on the wrong lines", () => {
    const r = runEditFuzz(800, 7)
    expect(r.examples).toEqual([])
    expect(r.wrongSpan).toBe(0)
    expect(r.reflowed).toBeGreaterThan(40)
  })
})

test("edit engine - a statement on one line in oldString but spread over several in the file is refused, showing the file's lines", () => {
  const file = ["function total(items) {", "  let sum = 0", "  let count = 0", "  const prices = items", "    .map((i) => i.price)", "    .filter(Boolean)", "  for (const p of prices) sum += p", "  count = prices.length", "  log(count)", "  return sum", "}", ""].join("\n")
  const old = ["function total(items) {", "  let sum = 0", "  let count = 0", "  const prices = items.map((i) => i.price).filter(Boolean)", "  for (const p of prices) sum += p", "  count = prices.length", "  log(count)", "  return sum", "}"].join("\n")
  let error: unknown
  try {
    applyEdit(file, old, old.replace(".filter(Boolean)", ".filter((p) => p > 0)"))
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(EditError)
  expect((error as EditError).kind).toBe("not-found")
  expect((error as EditError).message).toContain('oldString\'s line "const prices = items.map((i) => i.price).filter(Boolean)" matches no single line of the file')
  expect((error as EditError).message).toContain("4:   const prices = items\n5:     .map((i) => i.price)\n6:     .filter(Boolean)")
})

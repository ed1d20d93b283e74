import { crlf, lines, snip, type EditCase } from "../case"

const yaml = lines("services:", "  web:", "    image: nginx", "    ports:", '      - "80:80"', "  db:", "    image: postgres")

const big = lines(
  ...Array.from({ length: 4000 }, (_, i) => `    value_${i} = compute(${i})  # step ${i}`),
  "def tail():",
  "    return finish(value_3999)",
)

export const cases: EditCase[] = [
  {
    name: "mixed: oldString drops a blank line the file has",
    file: lines("def load():", "    data = read()", "", "    return parse(data)"),
    oldString: snip("def load():", "    data = read()", "    return parse(data)"),
    newString: snip("def load():", "    data = read()", "    return parse(data, strict=True)"),
    expect: { text: lines("def load():", "    data = read()", "", "    return parse(data, strict=True)") },
  },
  {
    name: "mixed: oldString adds a blank line the file lacks",
    file: lines("a = 1", "b = 2", "c = 3"),
    oldString: snip("a = 1", "", "b = 2", "c = 3"),
    newString: snip("a = 1", "", "b = 20", "c = 3"),
    expect: { text: lines("a = 1", "b = 20", "c = 3") },
  },
  {
    name: "mixed: YAML block copied one level too shallow",
    file: yaml,
    oldString: snip("web:", "  image: nginx", "  ports:", '    - "80:80"'),
    newString: snip("web:", "  image: nginx", "  ports:", '    - "80:80"', '    - "443:443"'),
    expect: { text: yaml.replace('      - "80:80"\n', '      - "80:80"\n      - "443:443"\n') },
  },
  {
    name: "mixed: JSON written with 2 spaces into a 4-space file",
    file: lines("{", '    "scripts": {', '        "build": "tsc",', '        "test": "vitest"', "    }", "}"),
    oldString: snip('  "scripts": {', '    "build": "tsc",', '    "test": "vitest"', "  }"),
    newString: snip('  "scripts": {', '    "build": "tsc",', '    "test": "vitest",', '    "lint": "eslint ."', "  }"),
    expect: { text: lines("{", '    "scripts": {', '        "build": "tsc",', '        "test": "vitest",', '        "lint": "eslint ."', "    }", "}") },
  },
  {
    name: "mixed: escaped triple quotes of a Python docstring",
    file: lines("def total(xs):", '    """Return the total."""', "    return sum(xs)"),
    oldString: '\\"\\"\\"Return the total.\\"\\"\\"',
    newString: '\\"\\"\\"Return the sum of xs.\\"\\"\\"',
    expect: { text: lines("def total(xs):", '    """Return the sum of xs."""', "    return sum(xs)") },
  },
  {
    name: "mixed: Markdown hard line breaks survive on a rewritten line",
    file: "Roses are red  \nViolets are blue  \nSugar is sweet\n",
    oldString: snip("Roses are red", "Violets are blue"),
    newString: snip("Roses are red", "Violets are violet"),
    expect: { text: "Roses are red  \nViolets are violet  \nSugar is sweet\n" },
  },
  {
    name: "mixed: one elided line ('// ... existing code ...') keeps the real line",
    file: lines("function main() {", "  setup()", "  run()", "  teardown()", "}"),
    oldString: snip("function main() {", "  setup()", "  // ... existing code ...", "  teardown()", "}"),
    newString: snip("function main() {", "  setup()", "  // ... existing code ...", "  teardown()", "  report()", "}"),
    expect: { text: lines("function main() {", "  setup()", "  run()", "  teardown()", "  report()", "}") },
  },
  {
    name: "mixed: a long elided region is refused, never overwritten",
    file: lines("function main() {", "  setup()", "  a()", "  b()", "  c()", "  d()", "  e()", "  teardown()", "}"),
    oldString: snip("function main() {", "  setup()", "  // ... existing code ...", "  teardown()", "}"),
    newString: snip("function main() {", "  setup()", "  // ... existing code ...", "  teardown()", "  report()", "}"),
    expect: { error: "not-found" },
  },
  {
    name: "mixed: CRLF file, trailing spaces and wrong indentation at once",
    file: crlf(lines("Sub Main()", "    Dim x As Integer   ", "    x = 1", "End Sub")),
    oldString: snip("Dim x As Integer", "x = 1"),
    newString: snip("Dim x As Integer", "x = 2"),
    expect: { text: crlf(lines("Sub Main()", "    Dim x As Integer   ", "    x = 2", "End Sub")) },
  },
  {
    name: "mixed: tab-aligned columns written with spaces",
    file: lines("NAME\tAGE\tCITY", "alice\t30\tParis", "bob\t25\tRome"),
    oldString: "bob 25 Rome",
    newString: "bob\t26\tRome",
    expect: { text: lines("NAME\tAGE\tCITY", "alice\t30\tParis", "bob\t26\tRome") },
  },
  {
    name: "mixed: fuzzy edit near the end of a 4000-line file",
    file: big,
    oldString: snip("def tail():", "return finish(value_3999)"),
    newString: snip("def tail():", "return finish(value_3999, flush=True)"),
    expect: { text: big.replace("return finish(value_3999)", "return finish(value_3999, flush=True)") },
  },
  {
    name: "mixed: HTML attribute spacing differs",
    file: lines('<div class="card" >', '  <img src="a.png"  alt="A">', "</div>"),
    oldString: '<img src="a.png" alt="A">',
    newString: '<img src="a.png" alt="A" loading="lazy">',
    expect: { text: lines('<div class="card" >', '  <img src="a.png" alt="A" loading="lazy">', "</div>") },
  },
  {
    name: "mixed: exact match wins over a fuzzy twin at another indentation",
    file: lines("  start()", "  stop()", "x", "    start()", "    stop()"),
    oldString: snip("    start()", "    stop()"),
    newString: snip("    start()", "    pause()", "    stop()"),
    expect: { text: lines("  start()", "  stop()", "x", "    start()", "    pause()", "    stop()") },
  },
]

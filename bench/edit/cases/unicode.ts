import { lines, snip, type EditCase } from "../case"

const md = lines(
  "# Getting started",
  "",
  "Run “npm install” first — it’s quick.",
  "Then run the tests…",
  "",
  "## Options",
)

export const cases: EditCase[] = [
  {
    name: "unicode: curly quotes and em dash in the file, ASCII in oldString (the new quotes follow the file)",
    file: md,
    oldString: 'Run "npm install" first - it\'s quick.',
    newString: 'Run "npm ci" first - it\'s quick.',
    expect: { text: md.replace("Run “npm install” first — it’s quick.", "Run “npm ci” first - it’s quick.") },
  },
  {
    name: "unicode: straight quotes in the file, curly ones in oldString: the new text is straight too",
    file: lines('const msg = "don\'t panic"', "log(msg)"),
    oldString: "const msg = “don’t panic”",
    newString: "const msg = “don’t worry”",
    expect: { text: lines('const msg = "don\'t worry"', "log(msg)") },
  },
  {
    name: "unicode: unchanged line with typographic characters is kept byte for byte",
    file: md,
    oldString: snip('Run "npm install" first - it\'s quick.', "Then run the tests..."),
    newString: snip('Run "npm install" first - it\'s quick.', "Then run the tests with npm test."),
    expect: { text: md.replace("Then run the tests…", "Then run the tests with npm test.") },
  },
  {
    name: "unicode: model typed curly quotes into code, file has ASCII",
    file: lines('const title = "Report"', "render(title)"),
    oldString: "const title = “Report”",
    newString: "const title = “Annual report”",
    expect: { text: lines('const title = "Annual report"', "render(title)") },
  },
  {
    name: "unicode: non-breaking space in the file",
    file: lines("price:\u00A010 EUR", "tax: 2 EUR"),
    oldString: snip("price: 10 EUR", "tax: 2 EUR"),
    newString: snip("price: 12 EUR", "tax: 2 EUR"),
    expect: { text: lines("price: 12 EUR", "tax: 2 EUR") },
  },
  {
    name: "unicode: zero-width space hidden in the file",
    file: lines("let total\u200B = 0", "total += 1"),
    oldString: "let total = 0",
    newString: "let total = 10",
    expect: { text: lines("let total = 10", "total += 1") },
  },
  {
    name: "unicode: en dash in oldString, hyphen-minus in code",
    file: lines("const delta = end - start", "log(delta)"),
    oldString: "const delta = end – start",
    newString: "const delta = end – start – offset",
    expect: { text: lines("const delta = end - start - offset", "log(delta)") },
  },
  {
    name: "unicode: non-ASCII identifiers and text match exactly",
    file: lines("const größe = 3", "const naïve = true"),
    oldString: "const naïve = true",
    newString: "const naïve = false",
    expect: { text: lines("const größe = 3", "const naïve = false") },
  },
]

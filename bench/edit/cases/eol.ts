import { crlf, lines, snip, type EditCase } from "../case"

const cs = lines(
  "namespace Shop",
  "{",
  "    public class Order",
  "    {",
  "        public decimal Total { get; set; }",
  "        public bool Paid { get; set; }",
  "    }",
  "}",
)

export const cases: EditCase[] = [
  {
    name: "eol: CRLF file, LF oldString and newString",
    file: crlf(cs),
    oldString: snip("        public decimal Total { get; set; }", "        public bool Paid { get; set; }"),
    newString: snip("        public decimal Total { get; set; }", "        public decimal Tax { get; set; }", "        public bool Paid { get; set; }"),
    expect: { text: crlf(cs.replace("Total { get; set; }\n", "Total { get; set; }\n        public decimal Tax { get; set; }\n")) },
  },
  {
    name: "eol: CRLF oldString against an LF file",
    file: cs,
    oldString: crlf(snip("    {", "        public decimal Total { get; set; }")),
    newString: crlf(snip("    {", "        public decimal Total { get; init; }")),
    expect: { text: cs.replace("Total { get; set; }", "Total { get; init; }") },
  },
  {
    name: "eol: CRLF file with wrong indentation in oldString",
    file: crlf(cs),
    oldString: snip("public bool Paid { get; set; }", "}"),
    newString: snip("public bool Paid { get; set; }", "public string? Note { get; set; }", "}"),
    expect: { text: crlf(cs.replace("Paid { get; set; }\n", "Paid { get; set; }\n        public string? Note { get; set; }\n")) },
  },
  {
    name: "eol: mixed endings, only the edited lines change",
    file: "first\r\nsecond\nthird\r\nfourth\r\n",
    oldString: "third",
    newString: "THIRD",
    expect: { text: "first\r\nsecond\nTHIRD\r\nfourth\r\n" },
  },
  {
    name: "eol: UTF-8 BOM kept on a JSON file",
    file: '\uFEFF{\n  "name": "app",\n  "version": "1.0.0"\n}\n',
    oldString: '"version": "1.0.0"',
    newString: '"version": "1.1.0"',
    expect: { text: '\uFEFF{\n  "name": "app",\n  "version": "1.1.0"\n}\n' },
  },
  {
    name: "eol: BOM and CRLF with a fuzzy match",
    file: crlf("\uFEFF[section]\n\tkey = value\n\tother = 2\n"),
    oldString: snip("    key = value", "    other = 2"),
    newString: snip("    key = value2", "    other = 2"),
    expect: { text: crlf("\uFEFF[section]\n\tkey = value2\n\tother = 2\n") },
  },
  {
    name: "eol: oldString ends with a newline the last line of the file lacks",
    file: "line one\nline two",
    oldString: "line two\n",
    newString: "line 2\n",
    expect: { text: "line one\nline 2" },
  },
]

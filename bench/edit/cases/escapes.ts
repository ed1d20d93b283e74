import { lines, snip, type EditCase } from "../case"

const js = lines(
  "function greet(name) {",
  '  const msg = "Hello, " + name',
  "  console.log(`greeting ${name}`)",
  "  return msg",
  "}",
)

export const cases: EditCase[] = [
  {
    name: "escapes: whole block sent with \\n and \\\" written out",
    file: js,
    oldString: '  const msg = \\"Hello, \\" + name\\n  console.log(`greeting ${name}`)',
    newString: '  const msg = \\"Hi, \\" + name\\n  console.log(`greeting ${name}`)',
    expect: { text: js.replace('"Hello, "', '"Hi, "') },
  },
  {
    name: "escapes: escaped double quotes on one line",
    file: js,
    oldString: 'const msg = \\"Hello, \\" + name',
    newString: 'const msg = \\"Hello there, \\" + name',
    expect: { text: js.replace('"Hello, "', '"Hello there, "') },
  },
  {
    name: "escapes: escaped backticks and dollar in a template literal",
    file: js,
    oldString: "console.log(\\`greeting \\${name}\\`)",
    newString: "console.info(\\`greeting \\${name}\\`)",
    expect: { text: js.replace("console.log(", "console.info(") },
  },
  {
    name: "escapes: double-escaped backslashes in a Windows path",
    file: lines('const root = "C:\\\\Users\\\\app"', "const x = 1"),
    oldString: 'const root = \\"C:\\\\\\\\Users\\\\\\\\app\\"',
    newString: 'const root = \\"D:\\\\\\\\Users\\\\\\\\app\\"',
    expect: { text: lines('const root = "D:\\\\Users\\\\app"', "const x = 1") },
  },
  {
    name: "escapes: a real \\n inside a C string is not unescaped",
    file: lines("#include <stdio.h>", "int main(void) {", '    printf("done\\n");', "    return 0;", "}"),
    oldString: snip('    printf("done\\n");', "    return 0;"),
    newString: snip('    printf("finished\\n");', "    return 0;"),
    expect: { text: lines("#include <stdio.h>", "int main(void) {", '    printf("finished\\n");', "    return 0;", "}") },
  },
  {
    name: "escapes: \\t written out for tab indentation",
    file: lines("all:", "\tgo build ./...", "\tgo test ./..."),
    oldString: "\\tgo build ./...\\n\\tgo test ./...",
    newString: "\\tgo build ./...\\n\\tgo vet ./...\\n\\tgo test ./...",
    expect: { text: lines("all:", "\tgo build ./...", "\tgo vet ./...", "\tgo test ./...") },
  },
  {
    name: "escapes: escaped single quotes in Python",
    file: lines("def label(x):", "    return f'{x}: ok'"),
    oldString: "return f\\'{x}: ok\\'",
    newString: "return f\\'{x}: OK\\'",
    expect: { text: lines("def label(x):", "    return f'{x}: OK'") },
  },
]

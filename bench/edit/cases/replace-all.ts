import { lines, snip, type EditCase } from "../case"

const src = lines(
  "const userCount = users.length",
  "if (userCount > 0) {",
  "  report(userCount)",
  "}",
  "export { userCount }",
)

export const cases: EditCase[] = [
  {
    name: "replaceAll: rename an identifier everywhere",
    file: src,
    oldString: "userCount",
    newString: "activeUsers",
    replaceAll: true,
    expect: { text: src.replace(/userCount/g, "activeUsers") },
  },
  {
    name: "replaceAll: a single occurrence is fine",
    file: src,
    oldString: "users.length",
    newString: "users.filter(isActive).length",
    replaceAll: true,
    expect: { text: src.replace("users.length", "users.filter(isActive).length") },
  },
  {
    name: "replaceAll: nothing to replace is not-found",
    file: src,
    oldString: "customerCount",
    newString: "x",
    replaceAll: true,
    expect: { error: "not-found" },
  },
  {
    name: "replaceAll: a fuzzy block at two indentation levels, each re-indented",
    file: lines("try {", "  lock()", "  work()", "} finally {", "  unlock()", "}", "function f() {", "    lock()", "    work()", "}"),
    oldString: snip("lock()", "work()"),
    newString: snip("lock()", "work()", "audit()"),
    replaceAll: true,
    expect: { text: lines("try {", "  lock()", "  work()", "  audit()", "} finally {", "  unlock()", "}", "function f() {", "    lock()", "    work()", "    audit()", "}") },
  },
  {
    name: "replaceAll: CRLF file keeps CRLF on every replacement",
    file: "a = old\r\nb = old\r\n",
    oldString: "old",
    newString: "new\nline",
    replaceAll: true,
    expect: { text: "a = new\r\nline\r\nb = new\r\nline\r\n" },
  },
]

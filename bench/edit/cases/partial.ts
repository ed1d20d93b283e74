import { lines, snip, type EditCase } from "../case"

const ts = lines(
  "export async function load(id: string): Promise<User> {",
  "  const res = await fetch(`/api/users/${id}`, { headers })",
  "  if (!res.ok) throw new Error(`load failed: ${res.status}`)",
  "  return (await res.json()) as User",
  "}",
)

export const cases: EditCase[] = [
  {
    name: "partial: oldString starts in the middle of a line",
    file: ts,
    oldString: snip("{ headers })", "  if (!res.ok) throw new Error(`load failed: ${res.status}`)"),
    newString: snip("{ headers, signal })", "  if (!res.ok) throw new Error(`load failed: ${res.status}`)"),
    expect: { text: ts.replace("{ headers })", "{ headers, signal })") },
  },
  {
    name: "partial: oldString stops in the middle of a line",
    file: ts,
    oldString: snip("  const res = await fetch(`/api/users/${id}`, { headers })", "  if (!res.ok) throw"),
    newString: snip("  const res = await fetch(`/api/v2/users/${id}`, { headers })", "  if (!res.ok) throw"),
    expect: { text: ts.replace("/api/users/", "/api/v2/users/") },
  },
  {
    name: "partial: mid-line start and end with wrong indentation between",
    file: ts,
    oldString: snip("Promise<User> {", "const res = await fetch(`/api/users/${id}`, { headers })", "if (!res.ok)"),
    newString: snip("Promise<User> {", "const res = await fetch(`/api/users/${id}`, { headers, cache: \"no-store\" })", "if (!res.ok)"),
    expect: { text: ts.replace("{ headers })", '{ headers, cache: "no-store" })') },
  },
  {
    name: "partial: fragment of one line with different spacing",
    file: ts,
    oldString: "(await res.json())as User",
    newString: "(await res.json()) as User | null",
    expect: { text: ts.replace("(await res.json()) as User", "(await res.json()) as User | null") },
  },
  {
    name: "partial: fragment that would split an identifier is not matched",
    file: lines("const maxRetries = 3", "const retries = 0"),
    oldString: "Retries = 3  \nconst retries",
    newString: "Retries = 5\nconst retries",
    expect: { error: "not-found" },
  },
]

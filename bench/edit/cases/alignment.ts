import { lines, snip, type EditCase } from "../case"

// A statement written on one line in oldString and over several in the file (or the reverse):
// the block matcher once paired the wrong lines, kept the line that was meant and added or
// changed a neighbour. Every line of oldString must align with one file line, or the edit is refused.

const spread = lines(
  "function total(items) {",
  "  let sum = 0",
  "  let count = 0",
  "  const prices = items",
  "    .map((i) => i.price)",
  "    .filter(Boolean)",
  "  for (const p of prices) sum += p",
  "  count = prices.length",
  "  log(count)",
  "  return sum",
  "}",
)
const joined = spread.replace("  const prices = items\n    .map((i) => i.price)\n    .filter(Boolean)\n", "  const prices = items.map((i) => i.price).filter(Boolean)\n")
const around = (middle: string[]) => snip("function total(items) {", "  let sum = 0", "  let count = 0", ...middle, "  for (const p of prices) sum += p", "  count = prices.length", "  log(count)", "  return sum", "}")
const oneLine = ["  const prices = items.map((i) => i.price).filter(Boolean)"]
const threeLines = ["  const prices = items", "    .map((i) => i.price)", "    .filter(Boolean)"]

export const cases: EditCase[] = [
  {
    name: "alignment: oldString joins on one line a statement the file spreads over three: refused",
    file: spread,
    oldString: around(oneLine),
    newString: around(oneLine).replace(".filter(Boolean)", ".filter((p) => p > 0)"),
    expect: { error: "not-found" },
  },
  {
    name: "alignment: oldString spreads over three lines a statement the file has on one: refused",
    file: joined,
    oldString: around(threeLines),
    newString: around(threeLines).replace("    .filter(Boolean)", "    .filter((p) => p > 0)"),
    expect: { error: "not-found" },
  },
  {
    name: "alignment: a line deleted from the file since the read, the rest aligned: applied",
    file: spread.replace("  log(count)\n", ""),
    oldString: around(threeLines),
    newString: around(threeLines).replace("    .filter(Boolean)", "    .filter((p) => p > 0)"),
    expect: { text: spread.replace("  log(count)\n", "").replace("    .filter(Boolean)", "    .filter((p) => p > 0)") },
  },
  {
    name: "last line: deleting the file's last line leaves no blank line behind",
    file: lines("first()", "second()", "third()"),
    oldString: "third()",
    newString: "",
    expect: { text: lines("first()", "second()") },
  },
  {
    name: "trailing whitespace on lines the edit did not change stays as the file has it",
    file: "alpha()  \nbeta()\ngamma() \n",
    oldString: snip("alpha()", "beta()", "gamma()"),
    newString: snip("alpha()", "BETA()", "gamma()"),
    expect: { text: "alpha()  \nBETA()\ngamma() \n" },
  },
]

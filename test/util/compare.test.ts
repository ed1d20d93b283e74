// Agents and commands are listed in the order a reader expects: letters before case, so
// "Review" sits between "plan" and "test", not before every lower-case name.
import { expect, test } from "vitest"
import { compareNames } from "../../src/util"

test("compareNames - orders names case-insensitively, with a fixed order for names that differ only in case", () => {
  const names = ["test", "Review", "build", "plan", "Build", "docs-writer", "docs"]
  expect([...names].sort(compareNames)).toEqual(["Build", "build", "docs", "docs-writer", "plan", "Review", "test"])
  // The same order localeCompare gives for these ASCII names, without building ICU's collator.
  expect([...names].sort(compareNames).filter((n) => n !== "Build")).toEqual([...names].filter((n) => n !== "Build").sort((a, b) => a.localeCompare(b)))
})

import { lines, snip, type EditCase } from "../case"

const rs = lines(
  "use std::collections::HashMap;",
  "",
  "pub fn count_words(text: &str) -> HashMap<String, usize> {",
  "    let mut counts = HashMap::new();",
  "    for word in text.split_whitespace() {",
  "        *counts.entry(word.to_string()).or_insert(0) += 1;",
  "    }",
  "    counts",
  "}",
)

const lowered = rs.replace("word.to_string()", "word.to_lowercase()")

export const cases: EditCase[] = [
  {
    name: "line numbers: read-style 'N: ' prefixes on both strings",
    file: rs,
    oldString: snip("5:     for word in text.split_whitespace() {", "6:         *counts.entry(word.to_string()).or_insert(0) += 1;"),
    newString: snip("5:     for word in text.split_whitespace() {", "6:         *counts.entry(word.to_lowercase()).or_insert(0) += 1;"),
    expect: { text: lowered },
  },
  {
    name: "line numbers: prefixes on oldString only",
    file: rs,
    oldString: snip("5:     for word in text.split_whitespace() {", "6:         *counts.entry(word.to_string()).or_insert(0) += 1;"),
    newString: snip("    for word in text.split_whitespace() {", "        *counts.entry(word.to_lowercase()).or_insert(0) += 1;"),
    expect: { text: lowered },
  },
  {
    name: "line numbers: stale numbers from an older read",
    file: rs,
    oldString: snip("41:     for word in text.split_whitespace() {", "42:         *counts.entry(word.to_string()).or_insert(0) += 1;", "43:     }"),
    newString: snip("41:     for word in text.split_whitespace() {", "42:         *counts.entry(word.to_lowercase()).or_insert(0) += 1;", "43:     }"),
    expect: { text: lowered },
  },
  {
    name: "line numbers: cat -n style tab prefixes",
    file: rs,
    oldString: snip("     8\t    counts", "     9\t}"),
    newString: snip("     8\t    counts.shrink_to_fit();", "     9\t    counts", "    10\t}"),
    expect: { text: rs.replace("    counts\n}", "    counts.shrink_to_fit();\n    counts\n}") },
  },
  {
    name: "line numbers: first line copied without its prefix",
    file: rs,
    oldString: snip("let mut counts = HashMap::new();", "5:     for word in text.split_whitespace() {"),
    newString: snip("let mut counts: HashMap<String, usize> = HashMap::new();", "5:     for word in text.split_whitespace() {"),
    expect: { text: rs.replace("let mut counts = HashMap::new();", "let mut counts: HashMap<String, usize> = HashMap::new();") },
  },
  {
    name: "line numbers: old 'NNNNN| ' format with a blank line",
    file: rs,
    oldString: snip("00001| use std::collections::HashMap;", "00002| ", "00003| pub fn count_words(text: &str) -> HashMap<String, usize> {"),
    newString: snip("00001| use std::collections::HashMap;", "00002| ", "00003| pub fn count_words(text: &str) -> HashMap<String, u32> {"),
    expect: { text: rs.replace("HashMap<String, usize> {", "HashMap<String, u32> {") },
  },
  {
    name: "line numbers: prefixes and a flattened indentation together",
    file: rs,
    oldString: snip("7: }", "8: counts"),
    newString: snip("7: }", "8: counts.into_iter().collect()"),
    expect: { text: rs.replace("    counts\n}", "    counts.into_iter().collect()\n}") },
  },
]

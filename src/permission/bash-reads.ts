// Commands that print, search or summarise the files named on their command line: the
// files are reported as reads, so the `read` rules meet `grep KEY .env` as they meet the
// read tool, and paths outside the project are checked like cat's. grep and rg take a
// pattern first (unless -e or -f gives it), jq a filter; xxd and uniq write their second
// operand. A file only known at run time is not a read any rule can name, and is left as
// it was (`wc -l "$f"` in a loop stays allowed); so are directories searched recursively.
import type { Handler } from "./bash-types"
import { type Word, operands } from "./bash-words"

interface Spec {
  shortValue?: string
  longValue?: string[]
  /** Options whose value is a file the command reads (grep -f). */
  readOptions?: string[]
  /** Options that give the pattern, so the first operand is a file too. */
  patternOptions?: string[]
  /** How many operands are read (the rest are written); all unless given. */
  inputs?: number
  /** Options that make the command run a program. */
  runs?: string[]
}

export function reader(spec: Spec = {}): Handler {
  return (words, a, io) => {
    const { operands: rest, options } = operands(words, 1, spec.shortValue, spec.longValue)
    for (const o of options) {
      if (spec.runs?.includes(o.name)) a.unknown(`${words[0].value} ${o.name} runs a program on the files it reads`)
      if (spec.readOptions?.includes(o.name) && o.value) readFile(o.value)
    }
    let files = rest
    if (spec.patternOptions && !options.some((o) => spec.patternOptions!.includes(o.name))) files = files.slice(1)
    if (spec.inputs !== undefined) files = files.slice(0, spec.inputs)
    for (const file of files) readFile(file)

    function readFile(file: Word) {
      if (file.value === undefined || file.value === "-") return
      a.checkPath(file, { io })
      a.read(file, { io })
    }
  }
}

const GREP_LONG = [
  "--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context", "--directories", "--devices",
  "--include", "--exclude", "--exclude-dir", "--exclude-from", "--label", "--binary-files", "--group-separator",
]
const grep = reader({ shortValue: "efmABCdD", longValue: GREP_LONG, readOptions: ["-f", "--file", "--exclude-from"], patternOptions: ["-e", "--regexp", "-f", "--file"] })

const RG_LONG = [
  "--regexp", "--file", "--glob", "--iglob", "--max-count", "--after-context", "--before-context", "--context", "--encoding",
  "--threads", "--max-columns", "--type", "--type-not", "--replace", "--max-depth", "--type-add", "--type-clear", "--sort",
  "--sortr", "--max-filesize", "--path-separator", "--pre", "--pre-glob", "--engine", "--colors", "--context-separator",
  "--field-context-separator", "--field-match-separator", "--ignore-file", "--dfa-size-limit", "--regex-size-limit",
]

// jq: `--arg name value` and friends take two words; `--rawfile`/`--slurpfile name file` and
// `-f file` read a file; the first operand is the filter unless -f gave it; after `--args`
// or `--jsonargs` operands are values, not files.
const jq: Handler = (words, a, io) => {
  let filterGiven = false
  let valuesOnly = false
  const files: Word[] = []
  for (let i = 1; i < words.length; i++) {
    const v = words[i].value
    if (v === undefined) continue
    if (!valuesOnly && v.startsWith("-") && v !== "-") {
      if (v === "--arg" || v === "--argjson") i += 2
      else if (v === "--rawfile" || v === "--slurpfile") {
        if (words[i + 2]) files.push(words[i + 2])
        i += 2
      } else if (v === "-f" || v === "--from-file") {
        if (words[i + 1]) files.push(words[i + 1])
        filterGiven = true
        i++
      } else if (v === "--indent" || v === "-L") i++
      else if (v === "--args" || v === "--jsonargs") valuesOnly = true
      continue
    }
    if (!filterGiven) filterGiven = true
    else if (!valuesOnly) files.push(words[i])
  }
  for (const file of files) {
    if (file.value === undefined || file.value === "-") continue
    a.checkPath(file, { io })
    a.read(file, { io })
  }
}

export const READ_COMMANDS: Record<string, Handler> = {
  grep,
  egrep: grep,
  fgrep: grep,
  zgrep: grep,
  rg: reader({ shortValue: "efgmABCEjMtTr", longValue: RG_LONG, readOptions: ["-f", "--file", "--ignore-file"], patternOptions: ["-e", "--regexp", "-f", "--file"], runs: ["--pre"] }),
  jq,
  base64: reader({ shortValue: "w", longValue: ["--wrap"] }),
  xxd: reader({ shortValue: "cglosn", inputs: 1 }),
  od: reader({ shortValue: "AjNSstw", longValue: ["--address-radix", "--skip-bytes", "--read-bytes", "--strings", "--format", "--width", "--endian"] }),
  hexdump: reader({ shortValue: "efns", readOptions: ["-f"] }),
  strings: reader({ shortValue: "ntTes", longValue: ["--bytes", "--radix", "--encoding", "--target", "--output-separator"] }),
  diff: reader({
    shortValue: "CUFILSxX",
    longValue: ["--context", "--unified", "--show-function-line", "--ignore-matching-lines", "--label", "--starting-file", "--exclude", "--exclude-from", "--from-file", "--to-file", "--horizon-lines", "--tabsize", "--width"],
    readOptions: ["-X", "--exclude-from", "--from-file", "--to-file"],
  }),
  cmp: reader({ shortValue: "in", longValue: ["--ignore-initial", "--bytes"] }),
  wc: reader(),
  nl: reader({ shortValue: "bdfhilnsvw" }),
  tac: reader({ shortValue: "s", longValue: ["--separator"] }),
  rev: reader(),
  cut: reader({ shortValue: "bcdf", longValue: ["--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"] }),
  paste: reader({ shortValue: "d", longValue: ["--delimiters"] }),
  fold: reader({ shortValue: "w", longValue: ["--width"] }),
  comm: reader({ longValue: ["--output-delimiter"] }),
  uniq: reader({ shortValue: "fsw", longValue: ["--skip-fields", "--skip-chars", "--check-chars"], inputs: 1 }),
  zcat: reader(),
  bzcat: reader(),
  xzcat: reader(),
  bat: reader({ shortValue: "lHrm", longValue: ["--language", "--highlight-line", "--line-range", "--map-syntax", "--theme", "--style", "--tabs", "--wrap", "--terminal-width", "--pager"], runs: ["--pager"] }),
}

// git settings that run programs, read wherever they come from: `git -c key=value`, a config
// file this wright wrote, the hooks a git command may run. A setting whose value is a command
// (`alias.x = !cmd`, core.fsmonitor, core.sshCommand, core.pager, diff.external, filters, …) is
// analysed as shell code, so `rm` hidden in an alias meets the rules written for rm; an alias
// without `!` is analysed as the git command it stands for. What cannot be read asks.
import fs from "node:fs"
import path from "node:path"
import { readProjectFile } from "./bash-scripts"
import type { Analyzer } from "./bash-types"

export interface Setting {
  /** section[.subsection].name, section and name lower-cased as git compares them. */
  key: string
  value: string
}

type Kind = "shell" | "alias" | "hooks" | "credential" | "ask"

// [section, name, kind]: `*` stands for any subsection; "" for none. Names are lower case.
const CODE: [string, string, Kind][] = [
  ["alias", "*", "alias"],
  ["core", "fsmonitor", "shell"],
  ["core", "sshcommand", "shell"],
  ["core", "pager", "shell"],
  ["core", "editor", "shell"],
  ["core", "askpass", "shell"],
  ["core", "gitproxy", "shell"],
  ["core", "alternaterefscommand", "shell"],
  ["core", "hookspath", "hooks"],
  ["pager", "*", "shell"],
  ["diff", "external", "shell"],
  ["diff.*", "command", "shell"],
  ["diff.*", "textconv", "shell"],
  ["merge.*", "driver", "shell"],
  ["filter.*", "clean", "shell"],
  ["filter.*", "smudge", "shell"],
  ["filter.*", "process", "shell"],
  ["sequence", "editor", "shell"],
  ["interactive", "difffilter", "shell"],
  ["credential", "helper", "credential"],
  ["credential.*", "helper", "credential"],
  ["gpg", "program", "shell"],
  ["gpg.*", "program", "shell"],
  ["gpg.ssh", "defaultkeycommand", "shell"],
  ["sendemail", "tocmd", "shell"],
  ["sendemail", "cccmd", "shell"],
  ["sendemail", "sendmailcmd", "shell"],
  ["sendemail", "smtpserver", "ask"],
  ["difftool.*", "cmd", "shell"],
  ["mergetool.*", "cmd", "shell"],
  ["web", "browser", "shell"],
  ["browser.*", "cmd", "shell"],
  ["browser.*", "path", "shell"],
  ["man.*", "cmd", "shell"],
  ["man.*", "path", "shell"],
  ["help", "browser", "shell"],
  ["imap", "tunnel", "shell"],
  ["remote.*", "uploadpack", "shell"],
  ["remote.*", "receivepack", "shell"],
  ["remote.*", "vcs", "ask"],
  ["uploadpack", "packobjectshook", "shell"],
  ["submodule.*", "update", "shell"],
  ["include", "path", "ask"],
  ["includeif.*", "path", "ask"],
  ["protocol.*", "allow", "ask"],
  ["protocol", "allow", "ask"],
  ["instaweb", "httpd", "shell"],
]

// Sections `git -c` may set without asking (their keys that run programs are in CODE, checked first).
const PLAIN = new Set(
  ("user author committer color advice init i18n column log format pretty status commit tag push pull fetch merge rebase diff core " +
    "safe http gc maintenance branch checkout clone blame grep index pack feature versionsort am apply rerere transfer mailmap notes " +
    "reset stash worktree fsck url add submodule help protocol credential gpg remote filter interactive difftool mergetool " +
    "sequence sparse splitindex uploadpack receive repack").split(" "),
)
const BOOLEAN = /^(true|false|yes|no|on|off|1|0|)$/i
// Helpers git ships or that are common (`git credential-<name>`), and plain helper names.
const KNOWN_HELPERS = /^(store|cache|osxkeychain|manager|manager-core|libsecret|wincred|gnome-keyring|netrc)(\s|$)/

function kindOf(key: string): Kind | undefined {
  const parts = key.split(".")
  const section = parts[0]
  const name = parts[parts.length - 1]
  const sub = parts.length > 2 ? parts.slice(1, -1).join(".") : undefined
  for (const [s, n, kind] of CODE) {
    const [cs, csub] = s.split(".")
    const subMatches = csub === undefined ? sub === undefined : csub === "*" ? sub !== undefined : sub?.toLowerCase() === csub
    if (cs === section && subMatches && (n === "*" || n === name)) return kind
  }
  return undefined
}

/**
 * Judges one setting. `fromCommandLine`: an unknown key asks (a config file's ordinary keys do
 * not). Returns the hooks directory core.hooksPath names, if any.
 */
export function gitSetting(setting: Setting, a: Analyzer, where: string, fromCommandLine: boolean): string | undefined {
  const { key, value } = setting
  const kind = kindOf(key)
  const what = `git ${where} ${key}`
  switch (kind) {
    case "alias":
      // `!cmd` runs in the shell; anything else is the git command the alias stands for.
      return void a.script(value.startsWith("!") ? value.slice(1) : `git ${value}`)
    case "shell":
      if ((key.startsWith("pager.") || key === "core.fsmonitor") && BOOLEAN.test(value)) return
      return void a.script(value)
    case "credential":
      if (value === "" || KNOWN_HELPERS.test(value)) return
      if (value.startsWith("!")) return void a.script(value.slice(1))
      return void (value.startsWith("/") ? a.script(value) : a.unknown(`${what} runs git-credential-${value.split(/\s/)[0]}, a program the analysis does not know`))
    case "hooks":
      return value
    case "ask":
      return void a.unknown(`${what} = ${value} may run programs or read other settings that do`)
    default:
      if (fromCommandLine && !PLAIN.has(key.split(".")[0])) a.unknown(`${what} is a setting the analysis does not know; it may run programs`)
  }
}

/** The settings of a git config file, in order. Invalid text yields what could be read. */
export function parseGitConfig(text: string): Setting[] {
  const out: Setting[] = []
  let section = ""
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]
    if (c === "\n" || c === " " || c === "\t" || c === "\r") {
      i++
    } else if (c === "#" || c === ";") {
      while (i < n && text[i] !== "\n") i++
    } else if (c === "[") {
      const end = text.indexOf("]", i)
      if (end < 0) break
      const header = text.slice(i + 1, end)
      const m = /^\s*([^\s"]+)\s*(?:"((?:[^"\\]|\\.)*)")?\s*$/.exec(header)
      if (m) {
        const [name, ...rest] = m[1].split(".")
        section = [name.toLowerCase(), ...(m[2] !== undefined ? [m[2].replace(/\\(.)/g, "$1")] : rest)].join(".")
      }
      i = end + 1
    } else {
      let name = ""
      while (i < n && /[A-Za-z0-9-]/.test(text[i])) name += text[i++]
      if (name === "") {
        while (i < n && text[i] !== "\n") i++
        continue
      }
      while (i < n && (text[i] === " " || text[i] === "\t")) i++
      let value = ""
      if (text[i] === "=") {
        i++
        let quoted = false
        let pending = ""
        for (; i < n; i++) {
          const ch = text[i]
          if (ch === "\n" && !quoted) break
          if (ch === "\\") {
            const next = text[++i]
            if (next === "\n") continue
            value += pending + (next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "\b" : (next ?? ""))
            pending = ""
          } else if (ch === '"') {
            value += pending
            pending = ""
            quoted = !quoted
          } else if (!quoted && (ch === "#" || ch === ";")) {
            while (i < n && text[i] !== "\n") i++
            break
          } else if (!quoted && (ch === " " || ch === "\t" || ch === "\r")) {
            if (value !== "") pending += ch
          } else {
            value += pending + ch
            pending = ""
          }
        }
      }
      out.push({ key: `${section}.${name.toLowerCase()}`, value })
    }
  }
  return out
}

/** Where a repository's files are: its git directory, the common one (worktrees share it) and the top of its work tree. */
export interface Repository {
  gitDir: string
  common: string
  top: string
}

/** The repository `dir` lies in, found as git finds it (a `.git` directory or a `gitdir:` file). */
export function findRepository(dir: string): Repository | undefined {
  for (let d = dir, depth = 0; depth < 64; depth++) {
    const dotGit = path.join(d, ".git")
    let stat: fs.Stats | undefined
    try {
      stat = fs.statSync(dotGit)
    } catch {
      stat = undefined
    }
    if (stat) {
      let gitDir = dotGit
      if (stat.isFile()) {
        const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(safeRead(dotGit) ?? "")
        if (!pointer) return undefined
        gitDir = path.resolve(d, pointer[1])
      }
      const commondir = safeRead(path.join(gitDir, "commondir"))?.trim()
      return { gitDir, common: commondir ? path.resolve(gitDir, commondir) : gitDir, top: d }
    }
    const up = path.dirname(d)
    if (up === d) return undefined
    d = up
  }
  return undefined
}

function safeRead(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

const SHELL_SHEBANG = /^#!\s*(?:\/usr\/bin\/env\s+(?:-S\s+)?)?(?:\S*\/)?(sh|bash|dash|zsh|ksh|ash|mksh)(\s|$)/

/** A hook git may run: shell hooks are analysed as scripts, any other program asks, naming the hook. */
export function gitHook(file: string, a: Analyzer): void {
  const text = readProjectFile(file, a, "git runs the hook")
  if (text === undefined) return
  const first = text.split("\n", 1)[0]
  if (!first.startsWith("#!") || SHELL_SHEBANG.test(first)) a.script(text)
  else a.unknown(`git may run the hook ${file} (${first.slice(2).trim()}), written in this session, whose code is not analysed`)
}

// Drives a program in a real pseudo-terminal through tmux: each instance has its own tmux
// server (socket), so tests never touch each other or the user's tmux.
import { execFileSync } from "node:child_process"

export interface TmuxOptions {
  cwd: string
  env: NodeJS.ProcessEnv
  cols?: number
  rows?: number
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

export class Tmux {
  readonly socket = `wright-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`

  private tmux(args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args], { encoding: "utf8" })
  }

  /** Runs `argv` with exactly `env` (nothing inherited); after it exits the pane shows its exit code and terminal mode. */
  start(argv: string[], opts: TmuxOptions) {
    const env = Object.entries({ TERM: "xterm-256color", ...opts.env })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => quote(`${k}=${v}`))
      .join(" ")
    const cmd = `env -i ${env} ${argv.map(quote).join(" ")}; echo "[exited $?]"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo; sleep 600`
    this.tmux(["new-session", "-d", "-s", "t", "-x", String(opts.cols ?? 120), "-y", String(opts.rows ?? 40), "-c", opts.cwd, cmd])
  }

  /** Appends everything the program writes to the terminal, raw (escapes included), to `file`. */
  record(file: string) {
    this.tmux(["pipe-pane", "-o", "-t", "t", `cat >> ${quote(file)}`])
  }

  /** Key names as tmux knows them (Enter, Escape, C-c, Tab, Up, …). */
  keys(...keys: string[]) {
    this.tmux(["send-keys", "-t", "t", ...keys])
  }

  /** Literal text. */
  type(text: string) {
    this.tmux(["send-keys", "-t", "t", "-l", text])
  }

  /** Text as one bracketed paste, as a terminal sends it. */
  paste(text: string) {
    this.tmux(["set-buffer", "-b", "p", text])
    this.tmux(["paste-buffer", "-p", "-b", "p", "-t", "t"])
  }

  /** Sends a signal to the program running in the pane (the child of the pane's shell). */
  signal(sig: NodeJS.Signals) {
    const shell = this.tmux(["list-panes", "-t", "t", "-F", "#{pane_pid}"]).trim()
    const pid = execFileSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" }).trim().split(/\s+/)[0]
    process.kill(Number(pid), sig)
  }

  /** The terminal's line discipline right now, as `stty -a` prints it for the pane's tty. */
  ttyMode(): string {
    const tty = this.tmux(["display-message", "-p", "-t", "t", "#{pane_tty}"]).trim()
    return execFileSync("stty", ["-F", tty, "-a"], { encoding: "utf8" })
  }

  /** The visible screen. */
  screen(): string {
    return this.tmux(["capture-pane", "-p", "-t", "t"])
  }

  /** Scrollback plus screen. */
  all(): string {
    return this.tmux(["capture-pane", "-p", "-S", "-", "-t", "t"])
  }

  async waitFor(what: string | RegExp | ((screen: string) => boolean), opts: { timeoutMs?: number; all?: boolean } = {}): Promise<string> {
    const test = typeof what === "function" ? what : (s: string) => (typeof what === "string" ? s.includes(what) : what.test(s))
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000)
    let last = ""
    while (Date.now() < deadline) {
      last = opts.all ? this.all() : this.screen()
      if (test(last)) return last
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`timed out waiting for ${String(what)}; screen:\n${last}`)
  }

  kill() {
    try {
      this.tmux(["kill-server"])
    } catch {
      // already gone
    }
  }
}

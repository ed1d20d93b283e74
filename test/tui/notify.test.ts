import { expect, test } from "vitest"
import { chooseRing, ringSequence } from "../../src/tui/notify"

test("notify - the ring follows the terminal: OSC 9, OSC 777, the bell inside tmux or anywhere unknown, none when turned off", () => {
  const cases: [NodeJS.ProcessEnv, Parameters<typeof chooseRing>[1], ReturnType<typeof chooseRing>][] = [
    [{ TERM_PROGRAM: "iTerm.app" }, undefined, "osc9"],
    [{ TERM_PROGRAM: "WezTerm" }, undefined, "osc9"],
    [{ TERM_PROGRAM: "ghostty" }, undefined, "osc9"],
    [{ TERM: "xterm-kitty" }, undefined, "osc9"],
    [{ VTE_VERSION: "7600", TERM: "xterm-256color" }, undefined, "osc777"],
    [{ TERM: "foot" }, undefined, "osc777"],
    [{ TERM: "rxvt-unicode-256color" }, undefined, "osc777"],
    [{ TERM_PROGRAM: "iTerm.app", TMUX: "/tmp/tmux-0/default,1,0" }, undefined, "bell"],
    [{ TERM_PROGRAM: "tmux" }, undefined, "bell"],
    [{ TERM: "screen-256color" }, undefined, "bell"],
    [{ TERM_PROGRAM: "Apple_Terminal" }, undefined, "bell"],
    [{}, undefined, "bell"],
    [{ TERM_PROGRAM: "iTerm.app" }, true, "osc9"],
    [{ TERM_PROGRAM: "iTerm.app" }, false, undefined],
    [{}, "osc777", "osc777"],
  ]
  for (const [env, setting, want] of cases) expect(chooseRing(env, setting), JSON.stringify({ env, setting })).toBe(want)
})

test("notify - a session title cannot end the escape early or inject another one", () => {
  const evil = "x\x07\x1b]52;c;aGk=\x07; y"
  const osc9 = ringSequence("osc9", "wright", evil)
  expect(osc9.startsWith("\x1b]9;")).toBe(true)
  expect(osc9.slice(4, -1)).not.toMatch(/[\x00-\x1f;]/)
  const osc777 = ringSequence("osc777", "wright", evil)
  expect(osc777.split(";")).toHaveLength(4)
  expect(ringSequence("bell", "wright", evil)).toBe("\x07")
})

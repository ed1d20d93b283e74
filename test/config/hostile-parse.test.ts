// The config is validated without zod's compiled fast path (parse.ts). A hostile repository's
// wright.json must meet the same checks there: wrong types are refused naming the field, and
// keys such as __proto__ never reach Object.prototype or the parsed config.
import { expect, test } from "vitest"
import { ConfigError, parseConfigText } from "../../src/config"

test("config parse - a hostile file's wrong types are refused naming the field, and __proto__ pollutes nothing", () => {
  const bad = (text: string) => {
    try {
      parseConfigText(text, "/repo/wright.json", {})
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError)
      return (e as Error).message
    }
    throw new Error(`accepted: ${text}`)
  }
  expect(bad(`{ "permission": { "bash": 42 } }`)).toMatch(/permission\.bash/)
  expect(bad(`{ "mcp": { "x": { "type": "local", "command": "sh" } } }`)).toMatch(/mcp\.x\.command/)
  expect(bad(`{ "provider": { "p": { "options": { "baseURL": 5 } } } }`)).toMatch(/provider\.p\.options\.baseURL/)

  const parsed = parseConfigText(`{ "__proto__": { "polluted": true }, "constructor": { "prototype": { "polluted": true } }, "model": "a/b" }`, "/repo/wright.json", {}) as Record<string, unknown>
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype)
  expect(parsed.model).toBe("a/b")
})

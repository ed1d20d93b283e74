import { bash } from "./bash"
import { invalid } from "./invalid"
import { question } from "./question"
import { todoread, todowrite } from "./todo"
import type { Tool } from "./tool"
import { webfetch } from "./webfetch"

/** The built-in tools that are not about files (the skill tool is made per App from its skills). */
export function shellTools(): Tool[] {
  return [bash, webfetch, todowrite, todoread, question, invalid] as Tool[]
}

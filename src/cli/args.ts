// Parsed arguments of each command, shared by its yargs definition and its handler.

export interface RunArgs {
  message: string[]
  model?: string
  agent?: string
  file?: string[]
  format: "default" | "json"
  continue?: boolean
  session?: string
  dir?: string
  attach?: string
  password?: string
  username?: string
  auto?: boolean
  title?: string
  command?: string
  schema?: string
  thinking?: boolean
}

export interface ServeArgs {
  port: number
  hostname: string
  cors?: string[]
  insecure?: boolean
  dir?: string
}

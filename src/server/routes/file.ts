import os from "node:os"
import { z } from "zod"
import { FileContent, FileNode, FileStatus, FindMatch, PathInfo } from "../../protocol"
import { gitStatus, listDirectory, readContent } from "../files"
import { route } from "../route"
import { findFiles, findText } from "../search"

export const fileRoutes = [
  route({
    method: "get",
    path: "/path",
    operationId: "path.get",
    summary: "Where things are: home, state and config dirs, the git worktree and the project directory",
    tags: ["path"],
    response: PathInfo,
    handler: ({ app }) => ({ home: os.homedir(), state: app.paths.state, config: app.paths.config, worktree: app.worktree, directory: app.directory }),
  }),
  route({
    method: "get",
    path: "/find",
    operationId: "find.text",
    summary: "Search file contents with a regular expression (ripgrep); the first `limit` matches (default 10)",
    tags: ["find"],
    query: z.object({ pattern: z.string().min(1), limit: z.coerce.number().int().min(1).max(1000).default(10) }),
    response: z.array(FindMatch),
    handler: ({ app, query }) => findText(app.exec, app.directory, query.pattern, query.limit),
  }),
  route({
    method: "get",
    path: "/find/file",
    operationId: "find.files",
    summary: "Find files (and directories, ending in /) whose path fuzzily matches `query`, best first",
    tags: ["find"],
    query: z.object({
      query: z.string(),
      dirs: z.enum(["true", "false"]).optional(),
      type: z.enum(["file", "directory"]).optional(),
      limit: z.coerce.number().int().min(1).max(200).default(100),
    }),
    response: z.array(z.string()),
    handler: ({ app, query }) => findFiles(app.exec, app.directory, { query: query.query, kind: query.type ?? (query.dirs === "false" ? "file" : "all"), limit: query.limit }),
  }),
  route({
    method: "get",
    path: "/file",
    operationId: "file.list",
    summary: "List a directory of the project (path relative to the project), directories first",
    tags: ["file"],
    query: z.object({ path: z.string().default(".") }),
    response: z.array(FileNode),
    handler: ({ app, query }) => listDirectory(app, query.path),
  }),
  route({
    method: "get",
    path: "/file/content",
    operationId: "file.read",
    summary: "Read a file of the project: text, or base64 for binary files",
    tags: ["file"],
    query: z.object({ path: z.string().min(1) }),
    response: FileContent,
    handler: ({ app, query }) => readContent(app, query.path),
  }),
  route({
    method: "get",
    path: "/file/status",
    operationId: "file.status",
    summary: "Files git sees as added, modified or deleted, with line counts",
    tags: ["file"],
    response: z.array(FileStatus),
    handler: ({ app }) => (app.isGit ? gitStatus(app) : []),
  }),
]

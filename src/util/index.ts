// Small building blocks with no knowledge of the rest of wright: ids, paths,
// wildcards, locks, logging. Nothing here may import another src folder.
export * as Id from "./id"
export { xdg, expandHome } from "./paths"
export { createKeyedLock } from "./lock"
export { markdownFiles, parseFrontmatter } from "./frontmatter"
export { slug } from "./slug"
export * as Wildcard from "./wildcard"
export { lazyModule } from "./lazy"
export { compareNames } from "./compare"
export { mimeOf } from "./mime"
export { createLogger, fileSink, streamSink, parseLogLevel, silentLogger, LOG_LEVELS, type Logger, type LogLevel, type LogFields, type LogSink, type RootLogger } from "./log"
export { writePrivateJson } from "./private-file"
export { holdBaselineWasm } from "./wasm-tier"

import type { Argv, CommandModule } from "yargs"
import type { ServeArgs } from "../args"

/** The flags of every guarded listener (`wright serve`, and `wright --port`). */
export function listenerOptions<T>(y: Argv<T>) {
  return y
    .option("allow-host", { type: "string", array: true, describe: "also accept this Host header: name (any port) or name:port, e.g. behind a proxy (repeatable)" })
    .option("cors", { type: "string", array: true, describe: "allow this browser origin, exact, e.g. https://app.example.com (repeatable; also server.cors in the global config)" })
    .option("allow-dir", { type: "string", array: true, describe: "let requests name this directory and what is inside it (repeatable; also server.directories in the global config)" })
    .option("password-file", { type: "string", describe: "read the basic-auth password from the first line of this file (or $WRIGHT_SERVER_PASSWORD_FILE)" })
    .option("password-prompt", { type: "boolean", describe: "ask for the basic-auth password (hidden input; one line of stdin when piped)" })
    .option("password", { type: "string", describe: "basic-auth password; visible to other users in ps, prefer $WRIGHT_SERVER_PASSWORD or --password-file" })
    .option("insecure", { type: "boolean", describe: "allow a non-loopback --hostname without a password" })
    .option("mdns", { type: "boolean", describe: "advertise the server on the local network (mDNS; binds 0.0.0.0 unless --hostname; needs a password; also server.mdns)" })
    .option("mdns-domain", { type: "string", describe: "host name to advertise (default: server.mdnsDomain, else wright.local)" })
}

export const LISTENER_EPILOG = [
  "Every request must carry a Host naming this server's address (127.0.0.1, localhost, [::1] on loopback) and the bound port, or one given with --allow-host; a browser Origin must be allowed with --cors or server.cors in the global config (never a project's config).",
  "Requests may name only the start directory (and what is inside it), --allow-dir trees, server.directories of the global config, and projects that already have sessions.",
  "Bodies must be application/json, at most 10 MiB (64 MiB for prompts with file parts).",
  "Basic auth is on when a password is set: $WRIGHT_SERVER_PASSWORD, $WRIGHT_SERVER_PASSWORD_FILE, --password-file, --password-prompt or --password (username $WRIGHT_SERVER_USERNAME, default wright). A non-loopback --hostname needs one, or --insecure.",
].join("\n\n")

export const serveCommand: CommandModule<object, ServeArgs> = {
  command: "serve",
  describe: "serve the HTTP API (OpenCode-compatible) on a TCP port",
  builder: (y) =>
    listenerOptions(
      y
        .option("port", { type: "number", describe: "port to listen on (0 picks a free one; default: server.port in the config, else 4096)" })
        .option("hostname", { type: "string", describe: "address to bind (default: server.hostname in the config, else 127.0.0.1)" })
        .option("dir", { type: "string", describe: "default project directory" })
        .option("web", { type: "boolean", describe: "serve the browser UI too, with a one-time pairing link (as wright web)" })
        .option("open", { type: "boolean", describe: "with --web: open the pairing link in this machine's browser" }),
    ).epilog(LISTENER_EPILOG) as never,
  handler: async (args) => {
    const { serve } = await import("../serve/execute")
    await serve(args)
    // Keep-alive sockets and background timers must not hold a stopped server open.
    process.exit(process.exitCode ?? 0)
  },
}

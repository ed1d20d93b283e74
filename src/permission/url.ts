// When a rule names a URL's host. Some requests (webfetch to a loopback, private or metadata
// address) are settled only by rules written for that host, never by a catch-all. A pattern
// names a host when it spells out the scheme and the host literally, the host ending where
// the pattern ends or at `:` or `/`: `http://127.0.0.1:8080/*`, `https://[::1]/*` and
// `http://localhost:*` name theirs; `*`, `http://*`, `*://localhost/*` and
// `http://127.0.0.1*` (which also matches `http://127.0.0.1.evil.example/`) do not.
// Rules are matched against the URL as `new URL(…).href` writes it (lower-case scheme and
// host, IPv4 in dotted decimal, IPv6 compressed in brackets), so a rule names a host in
// that form: `http://2130706433/*` names nothing a request will carry.

const NAMED_HOST = /^https?:\/\/(\[[0-9a-f:.]+\]|[^/:*?@[\]\s]+)(:|\/|$)/

export function namesHost(pattern: string): boolean {
  return NAMED_HOST.test(pattern.replaceAll("\\", "/"))
}

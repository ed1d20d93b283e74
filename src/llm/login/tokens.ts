// A subscription login's access token, fresh when a request needs it. The token in auth.json is
// used while it has more than a minute left; otherwise one caller refreshes it and writes the
// new one back. "One caller" holds across processes: every `wright` the user runs shares the
// file, and two refreshing at once would each spend the refresh token (OpenAI rotates it: the
// loser's is then invalid and the user would be signed out). So a refresh first takes a lock
// in this process, then `auth.json.lock` (created exclusively), then reads the entry again:
// whoever waited finds the token the other refreshed and uses it.
import { closeSync, openSync, statSync, unlinkSync, writeSync } from "node:fs"
import { ProviderLoginExpiredError } from "../../protocol"
import { createKeyedLock } from "../../util"
import { readLogin, writeEntry, type OAuthEntry } from "../auth"

/** Refreshed this long before it expires, so that a request never leaves with a token about to die. */
export const REFRESH_EARLY_MS = 60_000
/** How long a request to a token endpoint may take: a refresh holds the lock meanwhile. */
export const TOKEN_TIMEOUT_MS = 20_000
/** A lock file older than this was left by a process that died mid-refresh. */
const STALE_LOCK_MS = 30_000
/** How long a refresh waits for another process's. */
const LOCK_WAIT_MS = 20_000

/** Thrown by a refresher when the server refused the refresh token itself (revoked, expired): only a new sign-in helps. */
export class LoginRevoked extends Error {}

/** Exchanges an entry's refresh token for a new entry. Throws LoginRevoked when the token is refused, anything else for a failure worth retrying later. */
export type Refresher = (entry: OAuthEntry) => Promise<OAuthEntry>

const inProcess = createKeyedLock()

export interface TokenSourceInput {
  file: string
  providerID: string
  refresh: Refresher
  now?: () => number
}

/**
 * The provider's login, its access token valid for at least REFRESH_EARLY_MS. Throws
 * ProviderLoginExpiredError when there is no login or its refresh token was refused.
 */
export function tokenSource(input: TokenSourceInput): () => Promise<OAuthEntry> {
  const now = input.now ?? Date.now
  const { file, providerID } = input
  const read = () => {
    const entry = readLogin(file, providerID)
    if (!entry) throw signInAgain(providerID, "there is no sign-in stored for it")
    return entry
  }
  const fresh = (e: OAuthEntry) => e.expires - REFRESH_EARLY_MS > now()
  return async () => {
    const entry = read()
    if (fresh(entry)) return entry
    return inProcess(`${file}\0${providerID}`, () =>
      withFileLock(`${file}.lock`, async () => {
        const current = read()
        if (fresh(current)) return current
        let next: OAuthEntry
        try {
          next = await input.refresh(current)
        } catch (e) {
          if (e instanceof LoginRevoked) throw signInAgain(providerID, e.message)
          throw e
        }
        writeEntry(file, providerID, next)
        return next
      }),
    )
  }
}

export function signInAgain(providerID: string, why: string): InstanceType<typeof ProviderLoginExpiredError> {
  return new ProviderLoginExpiredError({
    providerID,
    message: `The ${providerID} sign-in no longer works (${why}): sign in again with \`wright auth login ${providerID === "openai" ? "chatgpt" : providerID}\` (or /connect in the TUI)`,
  })
}

/** Runs `fn` holding `lock` (a file created exclusively); waits for another holder, takes over a stale one. */
export async function withFileLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS
  let fd: number | undefined
  while (fd === undefined) {
    try {
      fd = openSync(lock, "wx", 0o600)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
      if (isStale(lock)) {
        tryUnlink(lock)
        continue
      }
      if (Date.now() > deadline) throw new Error(`Another wright process has held ${lock} for over ${LOCK_WAIT_MS / 1000} s: if none is running, delete the file`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  try {
    writeSync(fd, String(process.pid))
    closeSync(fd)
    return await fn()
  } finally {
    tryUnlink(lock)
  }
}

function isStale(lock: string): boolean {
  try {
    return Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS
  } catch {
    return false
  }
}

function tryUnlink(file: string) {
  try {
    unlinkSync(file)
  } catch {}
}

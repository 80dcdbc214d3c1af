import type { Logger } from 'pino';
import { type Listener, startListener } from '../db/listener.ts';
import type { Principal } from './principal.ts';

/** The channel the triggers of migrations/0015_auth_invalidation.ts notify. */
export const AUTH_INVALIDATION_CHANNEL = 'auth_invalidation';

export interface CachedCredential {
  readonly principal: Principal;
  /** Epoch ms after which the entry is not served: its lifetime, or the credential's expiry if sooner. */
  readonly expiresAt: number;
  /** Epoch ms of the last write of last_used / last_seen known to this process. */
  touchedAt: number;
}

/**
 * The principals of recently seen API keys (by digest) and access tokens, for at most
 * `ttlSeconds` each, so an authenticated request reads no credential from the database.
 *
 * Entries are served only while this process LISTENs on `auth_invalidation` (see `listen`):
 * every change to what authentication answers notifies it in the transaction of the change, and
 * the entries of that API key, user or organization are dropped when the notification arrives.
 * A lost listening connection clears the whole cache and nothing is cached until it listens
 * again. A principal read from the database is cached only if no invalidation arrived while it
 * was read (`snapshot` before the read, `set` after), so a change that commits during the read
 * cannot leave a stale entry. Without a listener (tests that never call `listen`, workers) or
 * with a lifetime of 0 every request reads the database.
 */
export class CredentialCache {
  readonly #entries = new Map<string, CachedCredential>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  #generation = 0;
  #listener: Listener | undefined;

  constructor(ttlSeconds: number, maxEntries = 10_000) {
    this.#ttlMs = ttlSeconds * 1000;
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The backend pid of the listening connection, undefined while not listening. */
  get listenerPid(): number | undefined {
    return this.#listener?.pid;
  }

  get #serving(): boolean {
    return this.#ttlMs > 0 && this.#listener?.connected === true;
  }

  get(key: string, now: number): CachedCredential | undefined {
    if (!this.#serving) return undefined;
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Taken before reading a credential from the database; undefined when nothing may be cached. */
  snapshot(): number | undefined {
    return this.#serving ? this.#generation : undefined;
  }

  /** Caches what was read since `snapshot`, unless an invalidation or a reset came in between. */
  set(
    snapshot: number | undefined,
    key: string,
    principal: Principal,
    expiresBy: number,
    touchedAt: number,
  ): void {
    if (snapshot === undefined || snapshot !== this.#generation || !this.#serving) return;
    const expiresAt = Math.min(Date.now() + this.#ttlMs, expiresBy);
    if (this.#entries.size >= this.#maxEntries) {
      // The oldest insertion goes first (a Map iterates in insertion order).
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { principal, expiresAt, touchedAt });
  }

  /** A notification's payload: `api_key:<id>`, `user:<id>` or `organization:<id>`; anything else clears all. */
  invalidate(payload: string): void {
    this.#generation++;
    const colon = payload.indexOf(':');
    const kind = payload.slice(0, colon);
    const id = payload.slice(colon + 1);
    const matches: ((p: Principal) => boolean) | undefined =
      kind === 'api_key'
        ? (p) => p.apiKeyId === id
        : kind === 'user'
          ? (p) => p.userId === id
          : kind === 'organization'
            ? (p) => p.organizationId === id
            : undefined;
    if (colon < 0 || matches === undefined) {
      this.#entries.clear();
      return;
    }
    for (const [key, entry] of this.#entries) if (matches(entry.principal)) this.#entries.delete(key);
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /** Opens the process's listening connection (once; the API role calls it at start). */
  async listen(connectionString: string, logger: Logger): Promise<void> {
    if (this.#listener !== undefined || this.#ttlMs === 0) return;
    this.#listener = await startListener({
      connectionString,
      channel: AUTH_INVALIDATION_CHANNEL,
      onNotification: (payload) => this.invalidate(payload),
      onReset: () => this.clear(),
      logger,
    });
  }

  /** Resolves once every invalidation committed before the call has been applied here. */
  async sync(): Promise<void> {
    await this.#listener?.sync();
  }

  async close(): Promise<void> {
    const listener = this.#listener;
    this.#listener = undefined;
    this.clear();
    await listener?.close();
  }
}

/**
 * Which key a presented token belongs to. The first time a token is seen its secret is checked
 * against the key's scrypt hash; a verified token is then remembered under its SHA-256 (never the
 * token itself), so later requests cost a hash and two map lookups. The key set is derived from
 * the metadata store and rebuilt whenever the store's version moves: a key revoked or replaced on
 * any node (the master pushes the change to every node) fails on the next request, because a
 * remembered token only counts while its key still holds the same hash.
 */
import { hash } from 'crypto';
import type { KeyScope, TokenFormat } from '../metadata/api-key';
import { API_KEYS } from '../metadata/collections';
import type { MetadataStore } from '../metadata/store';
import { secretMatches } from './token-hash';
import { splitToken } from './token';
import { RecentMap } from '../../storage/core/recent-map';

export interface VerifiedKey {
  id: string;
  name: string;
  scope: KeyScope;
}

interface KnownKey extends VerifiedKey {
  hash: string;
  format: TokenFormat;
  expiresAtMs: number | null;
}

interface Remembered {
  keyId: string;
  hash: string;
}

/** Verified tokens kept; the oldest is forgotten first (a forgotten one is verified again). */
const REMEMBERED_TOKENS = 10_000;
/** Rejected tokens kept, so a client that retries a wrong token does not cost a slow hash each time. */
const REMEMBERED_REJECTIONS = 1_000;
/**
 * Slow checks running at once. scrypt runs on libuv's pool (4 threads), which also inflates gzip
 * bodies and reads files: a flood of unknown tokens may hold at most half of it.
 */
const MAX_SLOW_CHECKS = 2;

function digest(token: string): string {
  return hash('sha256', token, 'base64');
}

export class Authenticator {
  private indexedVersion = -1;
  private keys = new Map<string, KnownKey>();
  private readonly verified = new RecentMap<Remembered>(REMEMBERED_TOKENS);
  /** digest -> the store version it was rejected at: a change of the key set may make it valid. */
  private readonly rejected = new RecentMap<number>(REMEMBERED_REJECTIONS);
  /** A token being verified: concurrent requests with it wait for the one check. */
  private readonly pending = new Map<string, Promise<KnownKey | null>>();
  /** key id -> when this node last accepted it (ms). */
  private readonly lastUse = new Map<string, number>();
  private slowChecks = 0;
  private readonly waitingForSlowCheck: (() => void)[] = [];

  constructor(
    private readonly store: MetadataStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key the token belongs to, if it exists and has not expired; null otherwise. */
  async verify(token: string): Promise<VerifiedKey | null> {
    this.refresh();
    const tokenDigest = digest(token);
    const remembered = this.verified.get(tokenDigest);
    let key: KnownKey | null | undefined;
    if (remembered !== undefined) {
      const current = this.keys.get(remembered.keyId);
      if (current !== undefined && current.hash === remembered.hash) key = current;
      else this.verified.delete(tokenDigest);
    }
    if (key === undefined) {
      if (this.rejected.get(tokenDigest) === this.store.currentVersion) return null;
      key = await this.check(token, tokenDigest);
    }
    if (key === null || (key.expiresAtMs !== null && key.expiresAtMs <= this.now())) return null;
    this.lastUse.set(key.id, this.now());
    return { id: key.id, name: key.name, scope: key.scope };
  }

  /** When this node last accepted the key (null: not since it started). */
  lastUsedAt(keyId: string): string | null {
    const at = this.lastUse.get(keyId);
    return at === undefined ? null : new Date(at).toISOString();
  }

  private check(token: string, tokenDigest: string): Promise<KnownKey | null> {
    let running = this.pending.get(tokenDigest);
    if (running === undefined) {
      const version = this.store.currentVersion;
      running = this.limited(() => this.slowCheck(token))
        .then((key) => {
          if (key === null) this.rejected.set(tokenDigest, version);
          else this.verified.set(tokenDigest, { keyId: key.id, hash: key.hash });
          return key;
        })
        .finally(() => this.pending.delete(tokenDigest));
      this.pending.set(tokenDigest, running);
    }
    return running;
  }

  /** Runs `task` in one of the slow-check slots, first come first served; a finished check hands its slot to the next. */
  private async limited<T>(task: () => Promise<T>): Promise<T> {
    if (this.slowChecks < MAX_SLOW_CHECKS) this.slowChecks++;
    else await new Promise<void>((resolve) => this.waitingForSlowCheck.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waitingForSlowCheck.shift();
      if (next === undefined) this.slowChecks--;
      else next();
    }
  }

  /** The scrypt check: the key the token names, else the root keys whose token the operator chose. */
  private async slowCheck(token: string): Promise<KnownKey | null> {
    const parts = splitToken(token);
    const named = parts === null ? undefined : this.keys.get(parts.keyId);
    if (parts !== null && named !== undefined && named.format === 'trawl') {
      if (await secretMatches(parts.secret, named.hash)) return named;
    }
    for (const key of this.keys.values()) {
      if (key.format === 'given' && (await secretMatches(token, key.hash))) return key;
    }
    return null;
  }

  private refresh(): void {
    const version = this.store.currentVersion;
    if (version === this.indexedVersion) return;
    const keys = new Map<string, KnownKey>();
    for (const record of this.store.list(API_KEYS.name)) {
      const expiresAt = typeof record.expires_at === 'string' ? Date.parse(record.expires_at) : null;
      keys.set(String(record.id), {
        id: String(record.id),
        name: String(record.name),
        scope: record.scope as KeyScope,
        hash: String(record.hash),
        format: record.token_format as TokenFormat,
        expiresAtMs: expiresAt,
      });
    }
    this.keys = keys;
    this.indexedVersion = version;
  }
}

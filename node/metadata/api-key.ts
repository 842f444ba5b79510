/**
 * An API key as the metadata store keeps it (docs/api.md "Authentication"): its name, scope,
 * description and expiry, the first characters of its secret (the displayed prefix is built from
 * them and the id), and a slow hash of the secret. The token itself is never stored. The routes build these fields; this check runs again
 * where the write is applied (the master in a cluster), so no node stores a malformed key.
 */
import { validationError } from '../core/errors';

/** The scopes a key can be created with; the root key's scope is `root`. */
export const KEY_SCOPES = ['ingest', 'query', 'admin', 'full'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number] | 'root';
/** `trawl`: a generated token naming its key id; `given`: a root token chosen by the operator (TRAWL_ROOT_TOKEN). */
export const TOKEN_FORMATS = ['trawl', 'given'] as const;
export type TokenFormat = (typeof TOKEN_FORMATS)[number];

const KEY_FIELDS = ['name', 'scope', 'description', 'expires_at', 'secret_start', 'hash', 'token_format'];

type Fields = Readonly<Record<string, unknown>>;

function text(fields: Fields, name: string, required: boolean): string | null {
  const value = fields[name];
  if (value === undefined || value === null) {
    if (required) throw validationError(`${name} is required`);
    return null;
  }
  if (typeof value !== 'string' || (required && value.trim() === '')) throw validationError(`${name} must be a non-empty string`);
  return value;
}

function oneOf<T extends string>(fields: Fields, name: string, allowed: readonly T[]): T {
  const value = fields[name];
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    throw validationError(`${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function apiKeyRecord(fields: Fields): Record<string, unknown> {
  for (const key of Object.keys(fields)) {
    if (!KEY_FIELDS.includes(key)) throw validationError(`field "${key}" is not accepted (accepted: ${KEY_FIELDS.join(', ')})`);
  }
  const expiresAt = text(fields, 'expires_at', false);
  if (expiresAt !== null && Number.isNaN(Date.parse(expiresAt))) throw validationError('expires_at must be an ISO 8601 time or null');
  const hash = text(fields, 'hash', true)!;
  if (!hash.startsWith('scrypt$')) throw validationError('hash must be an scrypt hash');
  return {
    name: text(fields, 'name', true),
    scope: oneOf<KeyScope>(fields, 'scope', [...KEY_SCOPES, 'root']),
    description: text(fields, 'description', false),
    expires_at: expiresAt,
    secret_start: text(fields, 'secret_start', false),
    hash,
    token_format: oneOf<TokenFormat>(fields, 'token_format', TOKEN_FORMATS),
  };
}

/** The last root key cannot be revoked: without one, no key could be made or revoked again. */
export function lastRootKeyStays(record: Fields, others: readonly Fields[]): void {
  if (record.scope === 'root' && !others.some((other) => other.scope === 'root'))
    throw validationError(
      `key ${String(record.id)} is the last root key: revoking it would leave no way to manage keys; rotate it instead`,
    );
}

/** A key as `GET /auth/keys` lists it: never its hash. `prefix` is null for a root token the operator chose. */
export function apiKeyListItem(record: Fields, prefix: string | null, lastUsedAt: string | null): Record<string, unknown> {
  return {
    id: record.id,
    name: record.name,
    prefix,
    scope: record.scope,
    description: record.description,
    created_at: record.created_at,
    expires_at: record.expires_at,
    last_used_at: lastUsedAt,
  };
}

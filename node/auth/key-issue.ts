/**
 * Making and revoking keys through the metadata writer (the master in a cluster): a new secret,
 * its hash in the record, and the token, which exists only in the answer to the caller.
 */
import { validationError } from '../core/errors';
import { parseDurationMs } from '../config/units';
import type { KeyScope } from '../metadata/api-key';
import { API_KEYS } from '../metadata/collections';
import type { MetadataRecord } from '../metadata/store';
import type { MetadataWriter } from '../metadata/writer';
import { hashSecret } from './token-hash';
import { newSecret, shownPrefix, tokenOf } from './token';

export interface KeyRequest {
  name: string;
  scope: KeyScope;
  description: string | null;
  expiresAt: string | null;
}

export interface IssuedKey {
  record: MetadataRecord;
  token: string;
}

/** `expires_in` (`30d`, `1y`, `never`) as the expiry time; null for never. */
export function expiryOf(expiresIn: string, nowMs: number): string | null {
  if (expiresIn === 'never') return null;
  const ms = parseDurationMs(expiresIn);
  const expiresAt = ms === null || ms <= 0 ? NaN : new Date(nowMs + ms).getTime();
  // A Date holds times up to the year 275760: a longer duration is no expiry a client could mean.
  if (Number.isNaN(expiresAt)) throw validationError(`expires_in must be a duration such as 30d or 1y, or never (got "${expiresIn}")`);
  return new Date(expiresAt).toISOString();
}

/** The prefix `GET /auth/keys` shows for a stored key. */
export function prefixOf(record: MetadataRecord): string | null {
  return typeof record.secret_start === 'string' ? shownPrefix(String(record.id), record.secret_start) : null;
}

export async function issueKey(writer: MetadataWriter, request: KeyRequest): Promise<IssuedKey> {
  const secret = newSecret();
  const fields = {
    name: request.name,
    scope: request.scope,
    description: request.description,
    expires_at: request.expiresAt,
    secret_start: secret.slice(0, 4),
    hash: await hashSecret(secret),
    token_format: 'trawl',
  };
  const { record } = await writer.write({ collection: API_KEYS.name, op: 'create', record: fields });
  return { record: record!, token: tokenOf(String(record!.id), secret) };
}

/** A root key for a token the operator chose (TRAWL_ROOT_TOKEN, auth.root_token). */
export async function adoptRootToken(writer: MetadataWriter, token: string): Promise<MetadataRecord> {
  const fields = { name: 'root', scope: 'root', description: null, expires_at: null, hash: await hashSecret(token), token_format: 'given' };
  return (await writer.write({ collection: API_KEYS.name, op: 'create', record: fields })).record!;
}

export async function revokeKey(writer: MetadataWriter, id: string): Promise<void> {
  await writer.write({ collection: API_KEYS.name, op: 'delete', id });
}

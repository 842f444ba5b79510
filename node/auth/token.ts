/**
 * The token format: `trawl_<key id>_<secret>`. The prefix makes a leaked token recognisable (a
 * secret scanner can match it); the key id lets a node find the key without trying every hash;
 * the secret is 32 random bytes, base64url (43 characters), so its length splits the token even
 * though ids and secrets may hold `_`.
 */
import { randomBytes } from 'crypto';

export const TOKEN_PREFIX = 'trawl_';
const SECRET_BYTES = 32;
const SECRET_LENGTH = Math.ceil((SECRET_BYTES * 4) / 3);
/** Characters of the secret shown in `prefix`: enough to tell two keys apart, far too few to guess the rest. */
const SHOWN_SECRET_CHARS = 4;

export function newSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

export function tokenOf(keyId: string, secret: string): string {
  return `${TOKEN_PREFIX}${keyId}_${secret}`;
}

/** The key id and secret a token of our format carries; null for any other text. */
export function splitToken(token: string): { keyId: string; secret: string } | null {
  const separator = token.length - SECRET_LENGTH - 1;
  if (!token.startsWith(TOKEN_PREFIX) || separator <= TOKEN_PREFIX.length || token[separator] !== '_') return null;
  return { keyId: token.slice(TOKEN_PREFIX.length, separator), secret: token.slice(separator + 1) };
}

/** What `GET /auth/keys` shows of a token: its start, so a user can tell which key a token is. */
export function shownPrefix(keyId: string, secret: string): string {
  return `${TOKEN_PREFIX}${keyId}_${secret.slice(0, SHOWN_SECRET_CHARS)}`;
}

/**
 * The token an `Authorization` header carries, in each form a client sends:
 *
 * - `Bearer <token>`: the native form.
 * - `ApiKey <base64(id:secret)>`: Elasticsearch clients and shippers (`auth: { apiKey }`); the id
 *   and secret are the two parts of a `trawl_<id>_<secret>` token. `ApiKey <token>` and
 *   `ApiKey base64(id:<token>)` are taken too, since users paste the whole token.
 * - `Basic <base64(user:token)>`: shippers that only know user and password. The password is the
 *   token and the user name is not checked (any name, such as the key's, will do); a user name
 *   that is a key id with the secret as password is the same as the ApiKey form.
 * - `Splunk <token>`: the event-collector form, on the event-collector endpoint only.
 */
import { TOKEN_PREFIX, tokenOf } from './token';

export type Credential = { kind: 'none' } | { kind: 'token'; token: string } | { kind: 'unreadable'; reason: string };

const SCHEME = /^\s*([A-Za-z]+)\s+(.+?)\s*$/;

function decodeBase64(text: string): string | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  return Buffer.from(text, 'base64').toString('utf8');
}

/** `id:secret` (or `id:token`) as a token; null when it is not a pair. */
function pairToken(pair: string): string | null {
  const colon = pair.indexOf(':');
  if (colon <= 0 || colon === pair.length - 1) return null;
  const secret = pair.slice(colon + 1);
  return secret.startsWith(TOKEN_PREFIX) ? secret : tokenOf(pair.slice(0, colon), secret);
}

function basicToken(pair: string): string | null {
  const colon = pair.indexOf(':');
  if (colon < 0 || colon === pair.length - 1) return null;
  const password = pair.slice(colon + 1);
  // A key id as user name and its secret as password: the ApiKey pair.
  if (colon > 0 && !password.startsWith(TOKEN_PREFIX) && pair.startsWith('key_')) return pairToken(pair);
  return password;
}

/** Reads the header; `collector` is true on the event-collector endpoint, where `Splunk <token>` is accepted. */
export function credentialOf(header: string | undefined, collector: boolean): Credential {
  if (header === undefined || header.trim() === '') return { kind: 'none' };
  const match = SCHEME.exec(header);
  if (match === null) return { kind: 'unreadable', reason: 'the Authorization header is not "<scheme> <credentials>"' };
  const scheme = match[1]!.toLowerCase();
  const value = match[2]!;
  switch (scheme) {
    case 'bearer':
      return { kind: 'token', token: value };
    case 'apikey': {
      if (value.startsWith(TOKEN_PREFIX)) return { kind: 'token', token: value };
      const decoded = decodeBase64(value);
      const token = decoded === null ? null : pairToken(decoded);
      return token === null ? { kind: 'unreadable', reason: 'ApiKey credentials must be base64(id:secret)' } : { kind: 'token', token };
    }
    case 'basic': {
      const decoded = decodeBase64(value);
      const token = decoded === null ? null : basicToken(decoded);
      return token === null ? { kind: 'unreadable', reason: 'Basic credentials must be base64(user:token)' } : { kind: 'token', token };
    }
    case 'splunk':
      if (collector) return { kind: 'token', token: value };
      return { kind: 'unreadable', reason: 'the Splunk scheme is accepted on /ingest/hec only; send Authorization: Bearer <token>' };
    default:
      return {
        kind: 'unreadable',
        reason: `the Authorization scheme "${match[1]}" is not accepted; send Bearer <token>, ApiKey <base64(id:secret)> or Basic <base64(user:token)>`,
      };
  }
}

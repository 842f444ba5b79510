/**
 * Helpers for tests with `auth.enabled`: the Authorization header forms, the root token a server
 * printed, and keys made through `POST /auth/keys`.
 */
import { strict as assert } from 'assert';
import { postJson } from './server';

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** `trawl_<id>_<secret>`: the secret is the last 43 characters. */
export function tokenParts(token: string): { id: string; secret: string } {
  const match = /^trawl_(.+)_([A-Za-z0-9_-]{43})$/.exec(token);
  assert.ok(match !== null, `a token of the trawl format: ${token}`);
  return { id: match[1]!, secret: match[2]! };
}

/** The token of the `root token: <token>` line a server printed. */
export function printedRootToken(log: string): string {
  const lines = [...log.matchAll(/^root token: (\S+)$/gm)];
  assert.equal(lines.length, 1, `one root token line in:\n${log}`);
  return lines[0]![1]!;
}

export interface MadeKey {
  id: string;
  token: string;
  body: Record<string, any>;
}

/** A key made with the root token through `api` (any node of a cluster). */
export async function makeKey(api: string, rootToken: string, fields: Record<string, unknown>): Promise<MadeKey> {
  const answer = await postJson(`${api}/auth/keys`, fields, bearer(rootToken));
  assert.equal(answer.status, 201, answer.text);
  return { id: answer.body.data.id, token: answer.body.data.token, body: answer.body.data };
}

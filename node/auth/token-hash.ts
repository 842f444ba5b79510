/**
 * Tokens are stored only as a slow, salted hash (scrypt), compared in constant time. The hash
 * keeps its parameters (`scrypt$N$r$p$salt$hash`), so stronger ones can be chosen later without
 * breaking stored keys. Verifying costs tens of milliseconds on purpose: the authenticator caches
 * each verified token so that a request pays it once, not every time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'crypto';

const COST = 16_384;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

function derive(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(secret, salt, { N: COST, r: BLOCK_SIZE, p: PARALLELISM });
  return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Whether `secret` hashes to `stored`; false for a stored value this code cannot read. */
export async function secretMatches(secret: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, expected] = stored.split('$');
  if (kind !== 'scrypt' || salt === undefined || expected === undefined) return false;
  const expectedKey = Buffer.from(expected, 'base64');
  const key = await derive(secret, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expectedKey.length && timingSafeEqual(key, expectedKey);
}

import crypto from 'crypto';

/** A request-unique seed for generated document ids, stored with the record so replay gives the same ids. */
export function idSeed(): string {
  return crypto.randomBytes(9).toString('base64url');
}

/**
 * The first root key. With auth on and no key stored yet, the node that applies metadata writes
 * (a node alone, or the cluster's master; the others receive the key with the metadata) makes
 * one: for the token in TRAWL_ROOT_TOKEN or `auth.root_token` when set, else for a generated
 * token, which it returns so the caller prints it, the one time it is ever shown.
 */
import { API_KEYS } from '../metadata/collections';
import type { MetadataStore } from '../metadata/store';
import type { MetadataWriter } from '../metadata/writer';
import { adoptRootToken, issueKey } from './key-issue';

export type Bootstrap = { made: 'none' } | { made: 'given' } | { made: 'generated'; token: string };

export async function bootstrapRootKey(store: MetadataStore, writer: MetadataWriter, givenToken: string | null): Promise<Bootstrap> {
  if (store.list(API_KEYS.name).length > 0) return { made: 'none' };
  if (givenToken !== null) {
    await adoptRootToken(writer, givenToken);
    return { made: 'given' };
  }
  const { token } = await issueKey(writer, { name: 'root', scope: 'root', description: null, expiresAt: null });
  return { made: 'generated', token };
}

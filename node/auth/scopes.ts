/**
 * What each scope may do. Endpoints need one privilege each (privileges.ts); a key passes when
 * its scope grants it. `admin` also reads (an administrator sees what they manage, as an
 * Elasticsearch `manage` user does) but does not ingest; `full` does everything but manage keys
 * and the node's own config; the root key does everything.
 */
import type { KeyScope } from '../metadata/api-key';

export type Privilege = 'ingest' | 'query' | 'admin' | 'root';

const GRANTED: Readonly<Record<KeyScope, readonly Privilege[]>> = {
  ingest: ['ingest'],
  query: ['query'],
  admin: ['admin', 'query'],
  full: ['ingest', 'query', 'admin'],
  root: ['ingest', 'query', 'admin', 'root'],
};

export function scopeGrants(scope: KeyScope, privilege: Privilege): boolean {
  return GRANTED[scope].includes(privilege);
}

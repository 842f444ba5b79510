// The server's own indexes (the audit log, `_audit`) are read through their endpoint only: a query
// a user sends may not name them. Remote fragments re-parse the coordinator's text without this
// check, so the endpoint's own query still runs on every node.

import { isInternalIndexName } from '../../storage/core/event';
import { QueryError } from '../syntax/errors';
import type { Query } from './registry';

export function refuseInternalIndexes(query: Query): void {
  const [from] = query.stages;
  if (from?.kind !== 'from') return;
  const internal = from.indexes.find((pattern) => !pattern.glob && isInternalIndexName(pattern.pattern));
  if (internal === undefined) return;
  throw new QueryError(
    'E015',
    `index ${internal.pattern} is internal to the server: the audit log is read with GET /api/v1/audit`,
    internal.pos,
    'name a user index (its name starts with a letter or digit)',
  );
}

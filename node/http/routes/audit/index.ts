/**
 * The audit log (docs/api.md "Audit log"): `GET /audit`, admin scope. What writes the entries is
 * node/audit and node/http/audit-request.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import { listEntriesRoute } from './list-entries';

export function auditRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    listEntriesRoute(server, app);
  };
}

/**
 * Elasticsearch-compatible ingest, one file per endpoint: `GET /es/` (client handshake), `_bulk`
 * (bulk.ts), `_doc` and `_create` (doc.ts); the calls shippers make around writing are no-ops
 * (admin.ts). Errors here also carry Elasticsearch's shape (es-errors.ts).
 * Every answer carries `x-elastic-product: Elasticsearch` (set in the server's onRequest hook),
 * which the official clients check.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import type { IngestFlow } from '../../ingest-flow';
import { esAdminRoutes } from './admin';
import { bulkRoutes } from './bulk';
import { docRoutes } from './doc';
import { handshakeRoute } from './handshake';

export function esRoutes(app: App, flow: IngestFlow): FastifyPluginAsync {
  return async (server) => {
    handshakeRoute(server, app);
    bulkRoutes(server, flow);
    docRoutes(server, flow);
    await server.register(esAdminRoutes(app));
  };
}

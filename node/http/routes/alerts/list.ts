/** `GET /alerts`: every alert with its runtime status, oldest first. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ALERT_COLLECTION, NO_PARAMETERS, withStatus } from './alerts';

export function listAlertsRoute(server: FastifyInstance, app: App): void {
  server.get('/alerts', { schema: { querystring: NO_PARAMETERS } }, async (request) => {
    const { alerts, staleNodes } = await withStatus(app, app.metadata.list(ALERT_COLLECTION), request);
    return staleNodes.length === 0 ? { data: { alerts } } : { data: { alerts }, meta: { stale_status_nodes: staleNodes } };
  });
}

/** `GET /alerts`: every alert with its runtime status, oldest first. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ALERT_COLLECTION, NO_PARAMETERS } from './alerts';

export function listAlertsRoute(server: FastifyInstance, app: App): void {
  server.get('/alerts', { schema: { querystring: NO_PARAMETERS } }, async () => {
    return { data: { alerts: app.metadata.list(ALERT_COLLECTION).map((record) => app.alerts.view(record)) } };
  });
}

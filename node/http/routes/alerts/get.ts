/** `GET /alerts/{id}`: one alert with its runtime status; 404 NOT_FOUND for an unknown id. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ID_PARAMS, storedAlert, withStatus } from './alerts';

export function getAlertRoute(server: FastifyInstance, app: App): void {
  server.get<{ Params: { id: string } }>('/alerts/:id', { schema: { params: ID_PARAMS } }, async (request) => {
    const { alerts, staleNodes } = await withStatus(app, [storedAlert(app, request.params.id)], request);
    return staleNodes.length === 0 ? { data: alerts[0] } : { data: alerts[0], meta: { stale_status_nodes: staleNodes } };
  });
}

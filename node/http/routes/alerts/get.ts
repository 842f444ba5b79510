/** `GET /alerts/{id}`: one alert with its runtime status; 404 NOT_FOUND for an unknown id. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ID_PARAMS, storedAlert } from './alerts';

export function getAlertRoute(server: FastifyInstance, app: App): void {
  server.get<{ Params: { id: string } }>('/alerts/:id', { schema: { params: ID_PARAMS } }, async (request) => {
    return { data: app.alerts.view(storedAlert(app, request.params.id)) };
  });
}

/** `DELETE /dashboards/{id}`: 204 with no body; 404 NOT_FOUND for an unknown id. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { DASHBOARD_COLLECTION, ID_PARAMS, writeDashboard } from './dashboards';

export function deleteDashboardRoute(server: FastifyInstance, app: App): void {
  server.delete<{ Params: { id: string } }>('/dashboards/:id', { schema: { params: ID_PARAMS } }, async (request, reply) => {
    await writeDashboard(app, request, { collection: DASHBOARD_COLLECTION, op: 'delete', id: request.params.id });
    return reply.status(204).send();
  });
}

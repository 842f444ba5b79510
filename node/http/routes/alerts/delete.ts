/** `DELETE /alerts/{id}`: 204 with no body; 404 NOT_FOUND for an unknown id. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ALERT_COLLECTION, ID_PARAMS, writeAlert } from './alerts';

export function deleteAlertRoute(server: FastifyInstance, app: App): void {
  server.delete<{ Params: { id: string } }>('/alerts/:id', { schema: { params: ID_PARAMS } }, async (request, reply) => {
    await writeAlert(app, request, { collection: ALERT_COLLECTION, op: 'delete', id: request.params.id });
    return reply.status(204).send();
  });
}

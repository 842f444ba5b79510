/** `PUT /alerts/{id}`: a full replacement; `created_at` and the runtime status kept. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ALERT_BODY_SCHEMA, ALERT_COLLECTION, ID_PARAMS, JSON_BODY, writeAlert, type AlertBody } from './alerts';

export function replaceAlertRoute(server: FastifyInstance, app: App): void {
  server.put<{ Params: { id: string }; Body: AlertBody }>(
    '/alerts/:id',
    { schema: { params: ID_PARAMS, body: ALERT_BODY_SCHEMA }, config: JSON_BODY },
    async (request) => {
      const record = await writeAlert(app, request, {
        collection: ALERT_COLLECTION,
        op: 'replace',
        id: request.params.id,
        record: { ...request.body },
      });
      return { data: app.alerts.view(record!) };
    },
  );
}

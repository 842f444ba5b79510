/** `POST /alerts`: 201 with the alert, status `ok` and never checked yet. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ALERT_BODY_SCHEMA, ALERT_COLLECTION, JSON_BODY, writeAlert, type AlertBody } from './alerts';

export function createAlertRoute(server: FastifyInstance, app: App): void {
  server.post<{ Body: AlertBody }>('/alerts', { schema: { body: ALERT_BODY_SCHEMA }, config: JSON_BODY }, async (request, reply) => {
    const record = await writeAlert(app, request, { collection: ALERT_COLLECTION, op: 'create', record: { ...request.body } });
    return reply.status(201).send({ data: app.alerts.view(record!) });
  });
}

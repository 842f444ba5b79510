/**
 * `POST /alerts/{id}/test`: a dry run. The query runs now over the last interval; the answer says
 * whether the alert would trigger, the result row, which channels would fire (checked without
 * sending) and the message. Nothing is sent and the alert's status is not changed.
 */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ID_PARAMS, storedAlert } from './alerts';

export function testAlertRoute(server: FastifyInstance, app: App): void {
  server.post<{ Params: { id: string } }>('/alerts/:id/test', { schema: { params: ID_PARAMS } }, async (request) => {
    return { data: await app.alerts.test(storedAlert(app, request.params.id)) };
  });
}

/** `POST /alerts/{id}/test-channels`: a `[TEST]` notification to every enabled channel, and each one's outcome. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ID_PARAMS, storedAlert } from './alerts';

export function testAlertChannelsRoute(server: FastifyInstance, app: App): void {
  server.post<{ Params: { id: string } }>('/alerts/:id/test-channels', { schema: { params: ID_PARAMS } }, async (request) => {
    return { data: { results: await app.alerts.testChannels(storedAlert(app, request.params.id)) } };
  });
}

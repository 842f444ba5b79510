/**
 * `POST /alerts/{id}/test-channels`: a `[TEST]` notification to every enabled channel, and each
 * one's outcome. It reaches real receivers, so it is audited (`alert.test_channels`).
 */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { audited } from '../../audit-request';
import { ID_PARAMS, storedAlert } from './alerts';

export function testAlertChannelsRoute(server: FastifyInstance, app: App): void {
  server.post<{ Params: { id: string } }>('/alerts/:id/test-channels', { schema: { params: ID_PARAMS } }, async (request) => {
    const alert = storedAlert(app, request.params.id);
    const target = { target: String(alert.id), targetName: alert.name };
    return { data: { results: await audited(app, request, 'alert.test_channels', target, async () => app.alerts.testChannels(alert)) } };
  });
}

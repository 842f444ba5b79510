/** `GET /config`: the running configuration. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';

export function readConfigRoute(server: FastifyInstance, app: App): void {
  server.get('/config', async () => ({ data: app.config }));
}

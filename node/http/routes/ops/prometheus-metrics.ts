/** Root `GET /metrics`, unauthenticated: the Prometheus text of node/metrics/metrics.ts. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';

export function prometheusMetricsRoute(server: FastifyInstance, app: App): void {
  server.get('/metrics', async (_request, reply) => {
    reply.header('content-type', app.metrics.registry.contentType);
    return app.metrics.registry.metrics();
  });
}

/** `POST|GET /es/_refresh` (and `/{index}/_refresh`): nothing to do, acknowledged events are already searchable. */
import type { FastifyInstance } from 'fastify';

const refreshed = { _shards: { total: 1, successful: 1, failed: 0 } };

export function refreshRoutes(server: FastifyInstance): void {
  for (const path of ['/es/_refresh', '/es/:index/_refresh']) {
    server.post(path, async () => refreshed);
    server.get(path, async () => refreshed);
  }
}

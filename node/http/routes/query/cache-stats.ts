/** `GET /cache/stats`: the result cache's entries, size and hits. */
import type { FastifyInstance } from 'fastify';
import type { QueryRoutesContext } from './context';

export function cacheStatsRoute(server: FastifyInstance, { service }: QueryRoutesContext): void {
  server.get('/cache/stats', async () => ({ data: service.cache.stats() }));
}

/** `DELETE /cache`: empties the result cache. */
import type { FastifyInstance } from 'fastify';
import type { QueryRoutesContext } from './context';

export function clearCacheRoute(server: FastifyInstance, { service }: QueryRoutesContext): void {
  server.delete('/cache', async () => ({ data: { cleared: service.cache.clear() } }));
}

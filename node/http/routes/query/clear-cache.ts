/** `DELETE /cache`: empties the result cache (audited as `cache.clear`). */
import type { FastifyInstance } from 'fastify';
import { audited } from '../../audit-request';
import type { QueryRoutesContext } from './context';

export function clearCacheRoute(server: FastifyInstance, { app, service }: QueryRoutesContext): void {
  server.delete('/cache', async (request) => {
    const cleared = await audited(app, request, 'cache.clear', { target: null }, async () => service.cache.clear());
    return { data: { cleared } };
  });
}

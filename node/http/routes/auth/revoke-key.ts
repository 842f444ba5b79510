/** `DELETE /auth/keys/{id}`: revokes a key at once on every node; 204. The last root key cannot be revoked (node/metadata/api-key.ts). */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { revokeKey } from '../../../auth/key-issue';
import { metadataApiError } from '../../../metadata/api-error';
import { API_KEYS } from '../../../metadata/collections';
import { audited } from '../../audit-request';
import { ID_PARAMS } from './keys';

export function revokeKeyRoute(server: FastifyInstance, app: App): void {
  server.delete<{ Params: { id: string } }>('/auth/keys/:id', { schema: { params: ID_PARAMS } }, async (request, reply) => {
    const { id } = request.params;
    const stored = app.metadata.get(API_KEYS.name, id);
    const targetName = stored === undefined ? null : String(stored.name);
    await audited(app, request, 'auth.key.revoke', { target: id, targetName }, async () => {
      try {
        await revokeKey(app.metadataWriter, id);
      } catch (error) {
        throw metadataApiError(error);
      }
    });
    return reply.status(204).send();
  });
}

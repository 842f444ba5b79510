/** `DELETE /auth/keys/{id}`: revokes a key at once on every node; 204. The last root key cannot be revoked. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { revokeKey } from '../../../auth/key-issue';
import { validationError } from '../../../core/errors';
import { metadataApiError } from '../../../metadata/api-error';
import { ID_PARAMS, rootKeyIds } from './keys';

export function revokeKeyRoute(server: FastifyInstance, app: App): void {
  server.delete<{ Params: { id: string } }>('/auth/keys/:id', { schema: { params: ID_PARAMS } }, async (request, reply) => {
    const { id } = request.params;
    const roots = rootKeyIds(app);
    if (roots.length === 1 && roots[0] === id)
      throw validationError(`key ${id} is the last root key: revoking it would leave no way to manage keys; rotate it instead`);
    try {
      await revokeKey(app.metadataWriter, id);
    } catch (error) {
      throw metadataApiError(error);
    }
    return reply.status(204).send();
  });
}

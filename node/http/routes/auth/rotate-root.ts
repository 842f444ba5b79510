/**
 * `POST /auth/rotate-root`: replaces the calling root key with a new one; 201 with the new token,
 * shown this once, and `revoked_key_id`, the caller's key, which stops working at once.
 */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { Authenticator } from '../../../auth/authenticator';
import { issueKey, revokeKey } from '../../../auth/key-issue';
import { ApiError } from '../../../core/errors';
import { metadataApiError } from '../../../metadata/api-error';
import { NO_PARAMETERS } from '../metadata-records';
import { audited } from '../../audit-request';
import { keyView } from './keys';

export function rotateRootRoute(server: FastifyInstance, app: App, authenticator: Authenticator): void {
  server.post('/auth/rotate-root', { schema: { querystring: NO_PARAMETERS } }, async (request, reply) => {
    const caller = request.apiKey;
    if (caller === null || caller.scope !== 'root') throw new ApiError('FORBIDDEN', 'only a root key can rotate itself');
    // The entry's target is the key revoked; the new key's id is in the answer, never its token.
    const { record, token } = await audited(app, request, 'auth.root.rotate', { target: caller.id, targetName: caller.name }, async () => {
      try {
        const issued = await issueKey(app.metadataWriter, { name: caller.name, scope: 'root', description: null, expiresAt: null });
        try {
          await revokeKey(app.metadataWriter, caller.id);
        } catch (error) {
          // The old key still works: take the new one back rather than leave a root key whose token nobody holds.
          await revokeKey(app.metadataWriter, String(issued.record.id)).catch(() => undefined);
          throw error;
        }
        return issued;
      } catch (error) {
        throw metadataApiError(error);
      }
    });
    return reply.status(201).send({ data: { ...keyView(record, authenticator), token, revoked_key_id: caller.id } });
  });
}

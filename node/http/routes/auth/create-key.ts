/** `POST /auth/keys`: a new key; 201 with its token, shown this once (the audit log names the key, never its token). */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { Authenticator } from '../../../auth/authenticator';
import { expiryOf, issueKey } from '../../../auth/key-issue';
import { KEY_SCOPES, type KeyScope } from '../../../metadata/api-key';
import { metadataApiError } from '../../../metadata/api-error';
import { audited } from '../../audit-request';
import { JSON_BODY, keyView } from './keys';

interface CreateKeyBody {
  name: string;
  scope?: KeyScope;
  expires_in?: string;
  description?: string;
}

const CREATE_KEY_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '\\S', description: 'must be a non-empty string' },
    scope: { type: 'string', enum: [...KEY_SCOPES] },
    expires_in: { type: 'string', description: 'must be a duration such as 30d or 1y, or never' },
    description: { type: 'string' },
  },
  required: ['name'],
  additionalProperties: false,
} as const;

export function createKeyRoute(server: FastifyInstance, app: App, authenticator: Authenticator): void {
  server.post<{ Body: CreateKeyBody }>('/auth/keys', { schema: { body: CREATE_KEY_SCHEMA }, config: JSON_BODY }, async (request, reply) => {
    const { name, scope = 'full', expires_in: expiresIn = 'never', description = null } = request.body;
    const expiresAt = expiryOf(expiresIn, Date.now());
    const issued = await audited(
      app,
      request,
      'auth.key.create',
      ({ record }) => ({ target: String(record.id), targetName: name }),
      async () => {
        try {
          return await issueKey(app.metadataWriter, { name, scope, description, expiresAt });
        } catch (error) {
          throw metadataApiError(error);
        }
      },
    );
    return reply.status(201).send({ data: { ...keyView(issued.record, authenticator), token: issued.token } });
  });
}

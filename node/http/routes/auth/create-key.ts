/** `POST /auth/keys`: a new key; 201 with its token, shown this once. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { Authenticator } from '../../../auth/authenticator';
import { expiryOf, issueKey } from '../../../auth/key-issue';
import { KEY_SCOPES, type KeyScope } from '../../../metadata/api-key';
import { metadataApiError } from '../../../metadata/api-error';
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
    try {
      const { record, token } = await issueKey(app.metadataWriter, { name, scope, description, expiresAt });
      return reply.status(201).send({ data: { ...keyView(record, authenticator), token } });
    } catch (error) {
      throw metadataApiError(error);
    }
  });
}

/**
 * Authentication of every request when `auth.enabled` (docs/api.md "Authentication"): the token
 * from the Authorization header, the key it belongs to, and the privilege the route needs
 * (node/auth/privileges.ts). Runs as an onRequest hook, before the body is read, so a request
 * without a valid key costs no parse. 401 AUTH_REQUIRED without a token, 401 INVALID_TOKEN for a
 * token no live key holds, 403 FORBIDDEN for a key whose scope lacks the privilege.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, VerifiedKey } from '../auth/authenticator';
import { credentialOf } from '../auth/credentials';
import { requirementOf } from '../auth/privileges';
import { scopeGrants } from '../auth/scopes';
import { ApiError } from '../core/errors';
import { pathOf } from './errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key the request authenticated with; null when auth is off or the route is open. */
    apiKey: VerifiedKey | null;
  }
}

/** What a 401 tells the client it may send. */
const CHALLENGE = 'Bearer realm="trawl", ApiKey, Basic realm="trawl"';
const COLLECTOR_PATH = '/api/v1/ingest/hec';

/** Routes are checked as they are added: one no rule covers stops the server from starting. */
export function checkRouteRequirement(method: string | string[], url: string): void {
  for (const each of Array.isArray(method) ? method : [method]) {
    if (requirementOf(each, url) === null)
      throw new Error(`${each} ${url} has no entry in the privilege table (node/auth/privileges.ts): add the scope it needs`);
  }
}

export function installAuthHook(server: FastifyInstance, authenticator: Authenticator): void {
  server.decorateRequest('apiKey', null);
  server.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const path = pathOf(request.url) ?? '/';
    const url = request.routeOptions.url ?? path;
    const need = requirementOf(request.method, url) ?? 'any-key';
    if (need === 'open') return;
    const credential = credentialOf(request.headers.authorization, url === COLLECTOR_PATH);
    if (credential.kind !== 'token') {
      reply.header('www-authenticate', CHALLENGE);
      if (credential.kind === 'none')
        throw new ApiError('AUTH_REQUIRED', 'this endpoint needs an API key: send Authorization: Bearer <token>');
      throw new ApiError('INVALID_TOKEN', credential.reason);
    }
    const key = await authenticator.verify(credential.token);
    if (key === null) {
      reply.header('www-authenticate', CHALLENGE);
      throw new ApiError('INVALID_TOKEN', 'the token belongs to no key: it is wrong, revoked or expired');
    }
    if (need !== 'any-key' && !scopeGrants(key.scope, need)) {
      const what = need === 'root' ? 'the root key' : `the ${need} privilege`;
      throw new ApiError('FORBIDDEN', `${request.method} ${path} needs ${what}; key ${key.id} has scope ${key.scope}`);
    }
    request.apiKey = key;
  });
}

/**
 * Authentication of every request when `auth.enabled` (docs/api.md "Authentication"): the token
 * from the Authorization header, the key it belongs to, and the privilege the route needs
 * (node/auth/privileges.ts). Runs as an onRequest hook, before the body is read, so a request
 * without a valid key costs no parse. 401 AUTH_REQUIRED without a token, 401 INVALID_TOKEN for a
 * token no live key holds, 403 FORBIDDEN for a key whose scope lacks the privilege. Each refusal
 * is written to the audit log, within its bound per client address.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, VerifiedKey } from '../auth/authenticator';
import { credentialOf } from '../auth/credentials';
import { requirementOf, type Requirement } from '../auth/privileges';
import { scopeGrants } from '../auth/scopes';
import { ApiError } from '../core/errors';
import type { Refusal } from './audit-request';
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

/**
 * The requirement of every route, found in the privilege table once as the route is added (a
 * route no rule covers stops the server from starting), so a request costs a map lookup.
 */
export class RouteRequirements {
  private readonly byRoute = new Map<string, Requirement>();

  add(method: string | string[], url: string): void {
    for (const each of Array.isArray(method) ? method : [method]) {
      const need = requirementOf(each, url);
      if (need === null)
        throw new Error(`${each} ${url} has no entry in the privilege table (node/auth/privileges.ts): add the scope it needs`);
      this.byRoute.set(`${each} ${url}`, need);
    }
  }

  /** What a request needs: its route's requirement; a path no route serves needs any valid key. */
  of(method: string, routeUrl: string | undefined): Requirement {
    if (routeUrl === undefined) return method === 'OPTIONS' ? 'open' : 'any-key';
    return this.byRoute.get(`${method} ${routeUrl}`) ?? requirementOf(method, routeUrl) ?? 'any-key';
  }
}

/** Writes a refused credential to the audit log (node/http/audit-request.ts); the answer waits for it. */
export type RefusalRecorder = (request: FastifyRequest, refusal: Refusal) => Promise<void>;

export function installAuthHook(
  server: FastifyInstance,
  authenticator: Authenticator,
  requirements: RouteRequirements,
  recordRefusal: RefusalRecorder,
): void {
  server.decorateRequest('apiKey', null);
  server.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const routeUrl = request.routeOptions.url;
    const need = requirements.of(request.method, routeUrl);
    if (need === 'open') return;
    const credential = credentialOf(request.headers.authorization, routeUrl === COLLECTOR_PATH);
    if (credential.kind !== 'token') {
      reply.header('www-authenticate', CHALLENGE);
      if (credential.kind === 'none') {
        await recordRefusal(request, { reason: 'AUTH_REQUIRED', token: null, key: null });
        throw new ApiError('AUTH_REQUIRED', 'this endpoint needs an API key: send Authorization: Bearer <token>');
      }
      await recordRefusal(request, { reason: 'INVALID_TOKEN', token: null, key: null });
      throw new ApiError('INVALID_TOKEN', credential.reason);
    }
    const key = await authenticator.verify(credential.token);
    if (key === null) {
      reply.header('www-authenticate', CHALLENGE);
      await recordRefusal(request, { reason: 'INVALID_TOKEN', token: credential.token, key: null });
      throw new ApiError('INVALID_TOKEN', 'the token belongs to no key: it is wrong, revoked or expired');
    }
    if (need !== 'any-key' && !scopeGrants(key.scope, need)) {
      const what = need === 'root' ? 'the root key' : `the ${need} privilege`;
      const path = pathOf(request.url) ?? '/';
      await recordRefusal(request, { reason: 'FORBIDDEN', token: null, key });
      throw new ApiError('FORBIDDEN', `${request.method} ${path} needs ${what}; key ${key.id} has scope ${key.scope}`);
    }
    request.apiKey = key;
  });
}

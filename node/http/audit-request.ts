/**
 * What the audit log (node/audit) takes from a request: the actor (the key, the client address,
 * the node, the method and path) and, for a refused credential, the scheme and the key the token
 * names. Never the token, the header, the query string or the body.
 */
import type { FastifyRequest } from 'fastify';
import type { App } from '../app/app';
import type { AuditAction, AuditActor } from '../audit/audit-entry';
import type { VerifiedKey } from '../auth/authenticator';
import { splitToken } from '../auth/token';
import { isPeerForward, RelayedAnswer } from '../cluster/forward-mark';
import { API_KEYS } from '../metadata/collections';
import { pathOf, toApiError } from './errors';

/** The client address is the TCP peer's: X-Forwarded-For is not trusted, any client could write it. */
export function actorOf(app: App, request: FastifyRequest): AuditActor {
  const key = request.apiKey;
  return {
    keyId: key?.id ?? null,
    keyName: key?.name ?? null,
    scope: key?.scope ?? null,
    clientIp: request.socket.remoteAddress ?? request.ip,
    node: app.settings.cluster.nodeId,
    method: request.method,
    path: pathOf(request.url) ?? '/',
  };
}

export interface AuditTarget {
  target: string | null;
  targetName?: string | null;
}

/**
 * A request another member passed on to this one (forward-mark.ts): the member that took it from
 * the client records it, with the client's address, so this one does not.
 */
function forwardedByPeer(app: App, request: FastifyRequest): boolean {
  const cluster = app.cluster;
  if (cluster === null) return false;
  const { nodeId, secret } = app.settings.cluster;
  const forwarded = { method: request.method, url: request.url, headers: request.headers, peer: request.socket.remoteAddress };
  return isPeerForward(forwarded, cluster.membership.state().members, nodeId, secret);
}

async function recordFailure(
  app: App,
  request: FastifyRequest,
  action: AuditAction,
  target: AuditTarget,
  status: number,
  reason: string | null,
) {
  await app.audit.record({ action, outcome: 'failure', actor: actorOf(app, request), ...target, status, reason });
}

/**
 * Runs an administrative action and records it once it is done. An action refused as invalid
 * (a 4xx) made no change and is not recorded; one that failed on the server's side (a 5xx, such as
 * the master being unreachable) is recorded as a failure, since it may have been applied. When the
 * work passed the request on to another member (it returns a RelayedAnswer), the answer relayed
 * decides the same way.
 */
export async function audited<T>(
  app: App,
  request: FastifyRequest,
  action: AuditAction,
  target: AuditTarget | ((result: T) => AuditTarget),
  work: () => Promise<T>,
): Promise<T> {
  if (forwardedByPeer(app, request)) return work();
  let result: T;
  try {
    result = await work();
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      const known = typeof target === 'function' ? { target: null } : target;
      await recordFailure(app, request, action, known, apiError.status, apiError.code);
    }
    throw error;
  }
  if (result instanceof RelayedAnswer) {
    const known = typeof target === 'function' ? { target: null } : target;
    if (result.status >= 500) await recordFailure(app, request, action, known, result.status, result.code);
    else if (result.status < 400) await app.audit.record({ action, outcome: 'success', actor: actorOf(app, request), ...known });
    return result;
  }
  const known = typeof target === 'function' ? target(result) : target;
  await app.audit.record({ action, outcome: 'success', actor: actorOf(app, request), ...known });
  return result;
}

const KNOWN_SCHEMES = new Set(['bearer', 'apikey', 'basic', 'splunk']);
/** A key id as ids are made (node/metadata): anything else a token claims is not written down. */
const KEY_ID = /^key_[A-Za-z0-9_-]{1,64}$/;

/** The scheme of an Authorization header, lower-cased; `other` for any the server does not take, `none` without one. */
function schemeOf(header: string | undefined): string {
  if (header === undefined || header.trim() === '') return 'none';
  const word = /^\s*([A-Za-z]+)\s/.exec(header)?.[1]?.toLowerCase();
  return word !== undefined && KNOWN_SCHEMES.has(word) ? word : 'other';
}

export interface Refusal {
  reason: 'AUTH_REQUIRED' | 'INVALID_TOKEN' | 'FORBIDDEN';
  /** The token read from the header, to find the key id it names; never stored. */
  token: string | null;
  /** For FORBIDDEN: the valid key whose scope fell short. */
  key: VerifiedKey | null;
}

/** Records a refused credential (within the bound on refusals per client address). */
export async function recordRefusal(app: App, request: FastifyRequest, refusal: Refusal): Promise<void> {
  const actor = actorOf(app, request);
  if (refusal.key !== null) {
    Object.assign(actor, { keyId: refusal.key.id, keyName: refusal.key.name, scope: refusal.key.scope });
  } else if (refusal.token !== null) {
    // The key the token names, when it has our form: whose token is being tried, or misused.
    const keyId = splitToken(refusal.token)?.keyId;
    if (keyId !== undefined && KEY_ID.test(keyId)) {
      const stored = app.metadata.get(API_KEYS.name, keyId);
      Object.assign(actor, { keyId, keyName: stored === undefined ? null : String(stored.name) });
    }
  }
  const status = refusal.reason === 'FORBIDDEN' ? 403 : 401;
  await app.audit.refused({
    action: 'auth.refused',
    outcome: 'failure',
    actor,
    target: null,
    status,
    reason: refusal.reason,
    scheme: schemeOf(request.headers.authorization),
  });
}

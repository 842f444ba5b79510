/**
 * One audit log entry (docs/api.md "Audit log"): who did what, when, from where, through which
 * node. An entry holds names, ids, paths and codes only: never a token, a secret, a request body
 * or a config value, so the log can be read by an administrator who may not see the secrets.
 */
import { AUDIT_INDEX, type FieldValue, type LogEvent } from '../../storage/core/event';

/** The record kinds an administrator changes, as actions name them. */
export const AUDITED_RECORDS = { saved_queries: 'saved_query', dashboards: 'dashboard', alerts: 'alert' } as const;
type RecordSubject = (typeof AUDITED_RECORDS)[keyof typeof AUDITED_RECORDS];

export type AuditAction =
  | 'auth.key.create'
  | 'auth.key.revoke'
  | 'auth.root.rotate'
  | 'config.patch'
  | 'config.reload'
  | 'tls.reload'
  | 'cache.clear'
  | 'query.job.cancel'
  | 'alert.test_channels'
  | 'cluster.node.remove'
  | 'cluster.node.forget'
  | `${RecordSubject}.${'create' | 'replace' | 'delete'}`
  | 'auth.refused'
  | 'auth.refused.suppressed';

/** `success`: the change was made; `failure`: it was tried and failed on the server's side (5xx), or a credential was refused. */
export type AuditOutcome = 'success' | 'failure';

/** Who asked, from where and through which request. */
export interface AuditActor {
  /** The key the request authenticated with (for a refusal: the key the token names, when it names one); null with auth off. */
  keyId: string | null;
  keyName: string | null;
  scope: string | null;
  /** The address of the TCP peer: a proxy's, behind one (X-Forwarded-For is not trusted); null for a signal. */
  clientIp: string | null;
  /** The node that took the request. */
  node: string;
  /**
   * The request's method and path (without the query string). An entry no request made has no path:
   * a summary of refusals has no method either; a reload on a signal has the signal's name (`SIGHUP`).
   */
  method: string | null;
  path: string | null;
}

/** The actor of an action a signal to the process made (a SIGHUP reload): no key, no client address, no path. */
export function signalActor(signal: string, node: string): AuditActor {
  return { keyId: null, keyName: null, scope: null, clientIp: null, node, method: signal, path: null };
}

export interface AuditEntry {
  action: AuditAction;
  outcome: AuditOutcome;
  actor: AuditActor;
  /** What the action was on: a record or key id, or the config paths a patch set (`, ` between them). */
  target: string | null;
  /** The name of the record or key, when it has one. */
  targetName?: string | null;
  /** The HTTP status answered; absent on a summary of refusals. */
  status?: number;
  /** The error code, for a refusal or a failure. */
  reason?: string | null;
  /** The Authorization scheme a refused request used (`bearer`, `apikey`, `basic`, `splunk`, `other`), `none` without one. */
  scheme?: string | null;
  /** For `auth.refused.suppressed`: refusals from the address not recorded one by one, and the window they fell in. */
  suppressed?: number;
  windowStart?: string;
}

/** The fields of an entry as stored and answered, in this order; absent ones answer null. */
export const AUDIT_FIELDS = [
  'action',
  'outcome',
  'actor_key_id',
  'actor_key_name',
  'actor_scope',
  'client_ip',
  'node',
  'method',
  'path',
  'target',
  'target_name',
  'status',
  'reason',
  'scheme',
  'suppressed',
  'window_start',
] as const;

export function entryFields(entry: AuditEntry): Record<(typeof AUDIT_FIELDS)[number], FieldValue | null> {
  const { actor } = entry;
  return {
    action: entry.action,
    outcome: entry.outcome,
    actor_key_id: actor.keyId,
    actor_key_name: actor.keyName,
    actor_scope: actor.scope,
    client_ip: actor.clientIp,
    node: actor.node,
    method: actor.method,
    path: actor.path,
    target: entry.target,
    target_name: entry.targetName ?? null,
    status: entry.status ?? null,
    reason: entry.reason ?? null,
    scheme: entry.scheme ?? null,
    suppressed: entry.suppressed ?? null,
    window_start: entry.windowStart ?? null,
  };
}

/** The entry as an event of the audit index; `_raw` is its JSON, the fields its non-null values. */
export function auditEvent(entry: AuditEntry, timeMicros: number): LogEvent {
  const all = entryFields(entry);
  const fields: Record<string, FieldValue> = {};
  for (const [name, value] of Object.entries(all)) if (value !== null) fields[name] = value;
  return {
    time: timeMicros,
    raw: JSON.stringify({ _time: new Date(Math.floor(timeMicros / 1000)).toISOString(), ...all }),
    index: AUDIT_INDEX,
    fields,
  };
}

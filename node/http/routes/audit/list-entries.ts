/**
 * `GET /audit` (docs/api.md "Audit log"): the audit log's entries, newest first, over a time range
 * (default: the last 24 hours), filtered by action, actor, outcome, client address or a `where`
 * expression. The entries are events of the internal index `_audit`, read with one query over
 * every node (so any node answers for the whole cluster, with `meta.partial` when some could not).
 */
import type { FastifyInstance } from 'fastify';
import { QueryError } from '../../../../query/syntax';
import type { App } from '../../../app/app';
import { AUDIT_FIELDS } from '../../../audit/audit-entry';
import { auditQuery } from '../../../audit/audit-query';
import { checkQueryLength, invalidQuery, jobFailure, validationError } from '../../../core/errors';
import { parseTimeBound } from '../../../core/time-bound';
import { launchQuery } from '../query/launch';

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 10_000;
export const DEFAULT_AUDIT_FROM = '-24h';

interface AuditParams {
  from?: string;
  to?: string;
  limit?: number;
  action?: string;
  actor?: string;
  outcome?: 'success' | 'failure';
  client_ip?: string;
  q?: string;
}

const AUDIT_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    from: { type: 'string' },
    to: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_AUDIT_LIMIT, description: `must be an integer from 1 to ${MAX_AUDIT_LIMIT}` },
    action: { type: 'string', minLength: 1 },
    actor: { type: 'string', minLength: 1 },
    outcome: { type: 'string', enum: ['success', 'failure'] },
    client_ip: { type: 'string', minLength: 1 },
    q: { type: 'string', pattern: '\\S', description: 'must be a where expression' },
  },
  additionalProperties: false,
} as const;

/** An entry as answered: its time, then every field of AUDIT_FIELDS (null when it has none). */
function entryOf(event: Record<string, unknown>): Record<string, unknown> {
  const entry: Record<string, unknown> = { time: event._time };
  for (const name of AUDIT_FIELDS) entry[name] = event[name] ?? null;
  return entry;
}

export function listEntriesRoute(server: FastifyInstance, app: App): void {
  server.get<{ Querystring: AuditParams }>('/audit', { schema: { querystring: AUDIT_QUERY_SCHEMA } }, async (request) => {
    const started = performance.now();
    const params = request.query;
    const nowMs = Date.now();
    const fromMs = parseTimeBound('from', params.from ?? DEFAULT_AUDIT_FROM, nowMs);
    // Just past now by default: an entry written this millisecond is in the range.
    const toMs = params.to === undefined ? nowMs + 1 : parseTimeBound('to', params.to, nowMs);
    if (fromMs >= toMs) throw validationError('from must be before to');
    const limit = params.limit ?? DEFAULT_AUDIT_LIMIT;
    const query = auditQuery(
      { action: params.action, actor: params.actor, outcome: params.outcome, clientIp: params.client_ip, q: params.q },
      limit,
    );
    checkQueryLength(query.text, app.settings.query.maxQueryLength);
    try {
      // q is one `where` expression: a text that closes it to add stages is refused.
      if (app.queries.parse(query.text, query.variables, true).stages.length !== query.stages) {
        throw validationError('q must be one where expression (for example `reason == "FORBIDDEN"`), without further stages');
      }
    } catch (error) {
      if (error instanceof QueryError) throw invalidQuery(error);
      throw error;
    }
    const span = { fromMicros: fromMs * 1000, toMicros: toMs * 1000, nowMicros: nowMs * 1000 };
    const { job } = launchQuery(
      app.queries,
      { text: query.text, variables: query.variables, ...span, limit, offset: 0, profile: null },
      { internal: true },
    );
    await job.finished;
    if (job.status !== 'done' || job.answer === null)
      throw jobFailure(job.error ?? { code: 'INTERNAL_ERROR', message: 'the audit log could not be read' });
    const result = job.answer.data;
    const entries = result.type === 'events' ? result.events.map(entryOf) : [];
    const meta: Record<string, unknown> = {
      took_ms: Math.round(performance.now() - started),
      count: entries.length,
      limit,
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
    };
    const { partial, missing_keys, missing } = job.answer.meta as { partial?: boolean; missing_keys?: number; missing?: unknown };
    if (partial === true) Object.assign(meta, { partial, missing_keys, missing });
    return { data: { entries }, meta };
  });
}

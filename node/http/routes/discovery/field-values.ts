/**
 * `GET /fields/{name}/values` (docs/api.md): a field's most frequent values with their counts and
 * share, its count and distinct count, exact over the range. Two queries (`top N` of the field,
 * and `count`/`dc` of it), so a cluster answers for every node as a query does; the type comes
 * from the catalog, as `GET /fields` tells it.
 */
import type { FastifyInstance } from 'fastify';
import { fieldTypeOf } from '../../../../coordinator/discovery-descriptors';
import type { QueryService } from '../../../../coordinator/query-service';
import type { Value } from '../../../../query/value';
import type { App } from '../../../app/app';
import { jobFailure, validationError } from '../../../core/errors';
import { launchQuery } from '../query/launch';
import { catalogAnswer, discoveryRange, type DiscoveryRange } from './catalog-answer';

export const DEFAULT_VALUES_LIMIT = 10;
export const MAX_VALUES_LIMIT = 100;

interface ValuesParams {
  from?: string;
  to?: string;
  limit?: number;
}

const VALUES_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    from: { type: 'string' },
    to: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_VALUES_LIMIT, description: `must be an integer from 1 to ${MAX_VALUES_LIMIT}` },
  },
  additionalProperties: false,
} as const;

const VALUES_PARAMS_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 } },
  required: ['name'],
} as const;

/** The field as the query language names it: in backticks, which hold any name on one line without a backtick. */
function quotedField(name: string): string {
  if (/[`\r\n]/.test(name)) throw validationError('name: a field name with a backtick or a line break cannot be looked up');
  return `\`${name}\``;
}

interface ValueRow {
  value: Value;
  count: number;
}

/** Runs an aggregate query over the range; its rows. */
async function aggregateRows(service: QueryService, text: string, range: DiscoveryRange, nowMs: number) {
  const spec = {
    text,
    variables: {},
    fromMicros: range.fromMs * 1000,
    toMicros: range.toMs * 1000,
    nowMicros: nowMs * 1000,
    limit: 0,
    offset: 0,
    profile: null,
  };
  const { job } = launchQuery(service, spec, { unlimited: true });
  await job.finished;
  if (job.status !== 'done' || job.answer === null)
    throw jobFailure(job.error ?? { code: 'INTERNAL_ERROR', message: 'the values query failed' });
  const result = job.answer.data;
  const { partial, missing_keys, missing } = job.answer.meta as { partial?: boolean; missing_keys?: number; missing?: unknown };
  return { rows: result.type === 'aggregate' ? result.rows : [], partial: partial === true ? { partial, missing_keys, missing } : null };
}

export function fieldValuesRoute(server: FastifyInstance, app: App): void {
  server.get<{ Params: { name: string }; Querystring: ValuesParams }>(
    '/fields/:name/values',
    { schema: { params: VALUES_PARAMS_SCHEMA, querystring: VALUES_QUERY_SCHEMA } },
    async (request) => {
      const started = performance.now();
      const nowMs = Date.now();
      const { name } = request.params;
      const range = discoveryRange(request.query, nowMs);
      const limit = request.query.limit ?? DEFAULT_VALUES_LIMIT;
      const field = quotedField(name);
      const [top, totals, catalog] = await Promise.all([
        aggregateRows(app.queries, `from * | where ${field} is not null | top ${limit} ${field}`, range, nowMs),
        aggregateRows(app.queries, `from * | stats count(${field}) as total, dc(${field}) as unique`, range, nowMs),
        catalogAnswer(app, range, name, null),
      ]);
      const totalCount = Number(totals.rows[0]?.[0] ?? 0);
      const uniqueCount = Number(totals.rows[0]?.[1] ?? 0);
      const values: ValueRow[] = top.rows.map((row) => ({ value: row[0] ?? null, count: Number(row[1]) }));
      const described = catalog.part.fields.find((part) => part.name === name);
      const meta: Record<string, unknown> = {
        from: new Date(range.fromMs).toISOString(),
        to: new Date(range.toMs).toISOString(),
        took_ms: Math.round(performance.now() - started),
        ...(top.partial ?? totals.partial ?? {}),
      };
      return {
        data: {
          field: name,
          type: described === undefined ? 'string' : fieldTypeOf(described),
          values: values.map(({ value, count }) => ({ value, count, percent: totalCount > 0 ? (count / totalCount) * 100 : 0 })),
          unique_count: uniqueCount,
          total_count: totalCount,
        },
        meta,
      };
    },
  );
}

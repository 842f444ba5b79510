/**
 * The query request of `POST /query`, `GET /query` and `POST /query/stream`. Fastify validates it
 * with the JSON schemas below (types, enums, fields refused on a path, unknown fields: 400
 * VALIDATION_ERROR naming the field); `parseQueryRequest` then resolves aliases and defaults and
 * makes the checks that need the config or the clock (QUERY_TOO_LARGE, time bounds).
 */
import type { ProfileLevel, QueryRequest } from '../../coordinator/query-service';
import type { Settings } from '../config/settings';
import { checkQueryLength, validationError } from '../core/errors';
import { parseTimeBound } from '../core/time-bound';

export interface ParsedQueryRequest extends QueryRequest {
  /** null: sync window; 0: async; N > 0: hybrid, seconds. */
  wait: number | null;
}

/** A request's fields once its schema let them through; null means the same as absent. */
export interface QueryParams {
  q?: string | null;
  query?: string | null;
  from?: string | null;
  earliest?: string | null;
  to?: string | null;
  latest?: string | null;
  limit?: number | null;
  offset?: number | null;
  wait?: number | null;
  profile?: ProfileLevel | null;
  variables?: Record<string, unknown> | null;
  format?: string | null;
  language?: string | null;
}

const text = { type: 'string', nullable: true } as const;

/** Fields every query path takes: the text (`q` or `query`), the range and its aliases, the language. */
const QUERY_FIELDS = {
  q: text,
  query: text,
  from: text,
  earliest: text,
  to: text,
  latest: text,
  language: { type: 'string', nullable: true, enum: ['native', null], description: 'the query language: native, the only one' },
} as const;

/** Fields of a paged answer (`POST /query`, `GET /query`). */
const PAGING_FIELDS = {
  limit: { type: 'integer', nullable: true, minimum: 0 },
  offset: { type: 'integer', nullable: true, minimum: 0 },
  wait: {
    type: 'number',
    nullable: true,
    minimum: 0,
    description: 'must be a number of seconds >= 0; 0 answers at once with a job handle',
  },
  profile: { type: 'string', nullable: true, enum: ['basic', 'full', 'trace', null] },
  format: {
    type: 'string',
    nullable: true,
    enum: ['', 'json', null],
    description: 'must be json (or empty); use POST /query/stream for NDJSON',
  },
} as const;

const variables = { type: 'object', nullable: true } as const;

/** Present with any value, even null: refused (the schema-error message says why). */
const refusedOnStream = { not: {}, description: 'cannot be used with /query/stream: it streams every matching event' } as const;

/** `POST /query`. */
export const QUERY_BODY_SCHEMA = {
  type: 'object',
  properties: { ...QUERY_FIELDS, ...PAGING_FIELDS, variables },
  additionalProperties: false,
} as const;

/** `GET /query`: the same fields as parameters, but `variables`, which cannot be an object there. */
export const QUERY_STRING_SCHEMA = {
  type: 'object',
  properties: { ...QUERY_FIELDS, ...PAGING_FIELDS },
  additionalProperties: false,
} as const;

/** `POST /query/stream`: no paging, every matching event. */
export const STREAM_BODY_SCHEMA = {
  type: 'object',
  properties: {
    ...QUERY_FIELDS,
    variables,
    limit: refusedOnStream,
    offset: refusedOnStream,
    wait: refusedOnStream,
    profile: refusedOnStream,
    format: refusedOnStream,
  },
  additionalProperties: false,
} as const;

/** Resolves a validated request: aliases, defaults from config, the time range. */
export function parseQueryRequest(params: QueryParams, settings: Settings, nowMs: number): ParsedQueryRequest {
  const q = params.q ?? params.query ?? undefined;
  if (q === undefined || q.trim() === '') throw validationError('q (or query) is required: the query text');
  checkQueryLength(q, settings.query.maxQueryLength);
  const fromText = params.from ?? params.earliest ?? undefined;
  const toText = params.to ?? params.latest ?? undefined;
  const toMs = toText === undefined ? nowMs : parseTimeBound('to', toText, nowMs);
  // Without `from`, a query covers all time (as an export would); dashboards always send one.
  const fromMs = fromText === undefined ? 0 : parseTimeBound('from', fromText, nowMs);
  if (fromMs > toMs) throw validationError('from must not be after to');
  return {
    text: q,
    variables: params.variables ?? {},
    fromMicros: fromMs * 1000,
    // The range is [from, to): events exactly at `to` belong to the next range (no double counting).
    toMicros: toMs * 1000,
    nowMicros: nowMs * 1000,
    limit: Math.min(params.limit ?? settings.query.defaultResultLimit, settings.query.maxResultLimit),
    offset: params.offset ?? 0,
    profile: params.profile ?? null,
    wait: params.wait ?? null,
  };
}

/**
 * The query request of `POST /query`, `GET /query` and `POST /query/stream`: field aliases,
 * defaults from config, and every validation the SPEC names (VALIDATION_ERROR, QUERY_TOO_LARGE).
 */
import type { ProfileLevel, QueryRequest } from '../../coordinator/query-service';
import type { Settings } from '../config/settings';
import { ApiError, validationError } from '../errors';
import { parseTimeBound } from './time-bound';

export interface ParsedQueryRequest extends QueryRequest {
  /** null: sync window; 0: async; N > 0: hybrid, seconds. */
  wait: number | null;
}

const PROFILES = new Set(['basic', 'full', 'trace']);
const STREAM_FORBIDDEN = ['limit', 'offset', 'wait', 'profile', 'format'];

function text(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw validationError(`${name} must be a string`);
  return value;
}

function integer(body: Record<string, unknown>, name: string, min: number): number | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min) {
    throw validationError(`${name} must be an integer >= ${min}`);
  }
  return number;
}

/** Validates and normalizes a request body (or query-string parameters). */
export function parseQueryRequest(
  body: Record<string, unknown>,
  settings: Settings,
  nowMs: number,
  mode: 'query' | 'stream',
): ParsedQueryRequest {
  if (mode === 'stream') {
    const forbidden = STREAM_FORBIDDEN.filter((name) => body[name] !== undefined);
    if (forbidden.length > 0) {
      throw validationError(`${forbidden.join(', ')} cannot be used with /query/stream (it streams every matching event)`);
    }
  }
  const q = text(body, 'q') ?? text(body, 'query');
  if (q === undefined || q.trim() === '') throw validationError('q (or query) is required: the query text');
  if (q.length > settings.query.maxQueryLength) {
    throw new ApiError('QUERY_TOO_LARGE', `the query is ${q.length} characters long; query.max_query_length is ${settings.query.maxQueryLength}`);
  }
  const format = text(body, 'format');
  if (format !== undefined && format !== '' && format !== 'json') {
    throw validationError(`format "${format}" is not supported: only json (use POST /query/stream for NDJSON)`);
  }
  const language = text(body, 'language');
  if (language !== undefined && language !== 'native') {
    throw validationError(`language "${language}" is not supported: only native${language === 'spl2' ? ' (spl2 is no longer accepted)' : ''}`);
  }
  const fromText = text(body, 'from') ?? text(body, 'earliest');
  const toText = text(body, 'to') ?? text(body, 'latest');
  const toMs = toText === undefined ? nowMs : parseTimeBound('to', toText, nowMs);
  // Without `from`, a query covers all time (as an export would); dashboards always send one.
  const fromMs = fromText === undefined ? 0 : parseTimeBound('from', fromText, nowMs);
  if (fromMs > toMs) throw validationError('from must not be after to');
  const limit = Math.min(integer(body, 'limit', 0) ?? settings.query.defaultResultLimit, settings.query.maxResultLimit);
  const offset = integer(body, 'offset', 0) ?? 0;
  const waitValue = body.wait;
  let wait: number | null = null;
  if (waitValue !== undefined && waitValue !== null) {
    const number = typeof waitValue === 'string' ? Number(waitValue) : waitValue;
    if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) throw validationError('wait must be a number of seconds >= 0');
    wait = number;
  }
  const profile = text(body, 'profile');
  if (profile !== undefined && !PROFILES.has(profile)) throw validationError('profile must be basic, full or trace');
  const variables = body.variables ?? {};
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) throw validationError('variables must be an object');
  return {
    text: q,
    variables: variables as Record<string, unknown>,
    fromMicros: fromMs * 1000,
    // The range is [from, to): events exactly at `to` belong to the next range (no double counting).
    toMicros: toMs * 1000,
    nowMicros: nowMs * 1000,
    limit,
    offset,
    profile: (profile as ProfileLevel | undefined) ?? null,
    wait,
  };
}

/**
 * The error catalogue: every failure the node answers, by code, with its HTTP status and a default
 * message. The HTTP layer turns an ApiError into the envelope `{ error: { code, message, ... } }`;
 * throw one anywhere below a route. Framework errors (fastify's, node's HTTP parser's) are mapped
 * onto these codes in http/errors.ts, so no answer leaves the node in another shape.
 */

import type { JobError } from '../../coordinator/jobs';
import type { QueryError } from '../../query/syntax';

export const ERROR_CATALOGUE = {
  INVALID_JSON: { status: 400, message: 'the request body is not valid JSON' },
  INVALID_REQUEST: { status: 400, message: 'the request could not be read' },
  INVALID_QUERY: { status: 400, message: 'the query could not be parsed or planned' },
  QUERY_TOO_LARGE: { status: 400, message: 'the query is longer than query.max_query_length' },
  QUERY_MEMORY_EXCEEDED: { status: 400, message: 'the query needs more than query.max_query_memory' },
  QUERY_TIMEOUT: { status: 400, message: 'the query ran longer than query.max_query_runtime' },
  QUERY_CANCELED: { status: 400, message: 'the query was canceled' },
  VALIDATION_ERROR: { status: 400, message: 'the request is not valid' },
  AUTH_REQUIRED: { status: 401, message: 'authentication is required' },
  INVALID_TOKEN: { status: 401, message: 'the token was rejected' },
  FORBIDDEN: { status: 403, message: 'the token lacks the required scope' },
  NOT_FOUND: { status: 404, message: 'not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'this method is not allowed on this path' },
  REQUEST_TIMEOUT: { status: 408, message: 'the request was not received within http.request_timeout' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'the request body exceeds ingest.max_body_size' },
  URI_TOO_LONG: { status: 414, message: 'a path segment of the request is too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'unsupported media type' },
  EXPECTATION_FAILED: { status: 417, message: 'only the Expect: 100-continue expectation is supported' },
  RATE_LIMITED: { status: 429, message: 'the ingest rate limit (ingest.rate_limit) was exceeded', retryAfterSeconds: 1 },
  TOO_MANY_REQUESTS: { status: 429, message: 'query.max_concurrent queries are already running', retryAfterSeconds: 1 },
  HEADERS_TOO_LARGE: { status: 431, message: 'the request line or headers are too large' },
  INTERNAL_ERROR: { status: 500, message: 'internal error; see the server log' },
  BACKPRESSURE: { status: 503, message: 'the write buffer is full (ingest.max_buffered_events); retry shortly', retryAfterSeconds: 1 },
  SHARD_UNAVAILABLE: {
    status: 503,
    message: 'an owner of some of the events could not store them, and they could not be kept for it; retry',
    retryAfterSeconds: 1,
  },
  SHUTTING_DOWN: { status: 503, message: 'the server is shutting down' },
  CLUSTER_FORMING: {
    status: 503,
    message: 'the cluster is forming: waiting for its seed nodes to join; retry shortly',
    retryAfterSeconds: 1,
  },
  MASTER_UNAVAILABLE: { status: 503, message: 'the cluster master is not answering; metadata writes wait for it' },
  NODE_UNAVAILABLE: { status: 503, message: 'the cluster node that holds this query job is not answering' },
  QUERY_POOL_EXHAUSTED: { status: 503, message: 'the global query memory pool is exhausted', retryAfterSeconds: 1 },
} as const satisfies Record<string, { status: number; message: string; retryAfterSeconds?: number }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}

/**
 * The catalogue's `retryAfterSeconds`: the codes a client should retry (a full buffer, a busy query
 * pool, a rate limit) are answered with a `Retry-After` header, which shippers' retry loops read.
 */
function retryAfterOf(code: ErrorCode): number | undefined {
  const entry = ERROR_CATALOGUE[code];
  return 'retryAfterSeconds' in entry ? entry.retryAfterSeconds : undefined;
}

export class ApiError extends Error {
  readonly status: number;
  /** Seconds a client should wait before retrying (the `Retry-After` header); undefined: no header. */
  retryAfterSeconds: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CATALOGUE[code].message,
    /** Extra members of the error object (e.g. `parse_code`, `line`, `column` for INVALID_QUERY). */
    readonly details: Record<string, unknown> = {},
    /** The catalogue's status unless a route answers this code with another (422 VALIDATION_ERROR). */
    status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? ERROR_CATALOGUE[code].status;
    this.retryAfterSeconds = retryAfterOf(code);
  }

  /** The same error, telling the client to wait `seconds` (at least 1) before retrying. */
  retryAfter(seconds: number): this {
    this.retryAfterSeconds = Math.max(1, Math.ceil(seconds));
    return this;
  }

  toBody(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}

export const invalidJson = (message: string): ApiError => new ApiError('INVALID_JSON', message);
export const invalidRequest = (message: string): ApiError => new ApiError('INVALID_REQUEST', message);
export const validationError = (message: string, status?: number): ApiError => new ApiError('VALIDATION_ERROR', message, {}, status);
export const notFound = (message: string): ApiError => new ApiError('NOT_FOUND', message);

/** What a query error adds to its message: in the INVALID_QUERY envelope and in explain's errors[]. */
export function queryErrorFields(error: QueryError): { parse_code: string; line: number; column: number; suggestion: string } {
  return { parse_code: error.code, line: error.line, column: error.column, suggestion: error.suggestion };
}

/** A parse or planning error as INVALID_QUERY (docs/api.md). */
export function invalidQuery(error: QueryError): ApiError {
  return new ApiError('INVALID_QUERY', error.message, queryErrorFields(error));
}

/** A failed job as the answer to the request that waited for it: its code's status, or 500 for an unknown code. */
export function jobFailure(error: JobError): ApiError {
  if (!isErrorCode(error.code)) return new ApiError('INTERNAL_ERROR', error.message);
  return new ApiError(error.code, error.message, error.details ?? {});
}

/** Query text longer than `query.max_query_length`, wherever a query is taken (run, saved, on a dashboard, in an alert). */
export function checkQueryLength(text: string, max: number): void {
  if (text.length > max)
    throw new ApiError('QUERY_TOO_LARGE', `the query is ${text.length} characters long; query.max_query_length is ${max}`);
}

/**
 * API errors: every failure the HTTP layer answers with the SPEC's envelope
 * `{ error: { code, message } }` and a status. Throw an ApiError anywhere below a route.
 */

export type ErrorCode =
  | 'INVALID_JSON'
  | 'INVALID_REQUEST'
  | 'INVALID_QUERY'
  | 'QUERY_TOO_LARGE'
  | 'QUERY_MEMORY_EXCEEDED'
  | 'VALIDATION_ERROR'
  | 'AUTH_REQUIRED'
  | 'INVALID_TOKEN'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'TOO_MANY_REQUESTS'
  | 'BACKPRESSURE'
  | 'SHUTTING_DOWN'
  | 'QUERY_POOL_EXHAUSTED'
  | 'INTERNAL_ERROR';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Extra members of the error object (e.g. `parse_code`, `line`, `column` for INVALID_QUERY). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}

export const invalidJson = (message: string): ApiError => new ApiError(400, 'INVALID_JSON', message);
export const invalidRequest = (message: string): ApiError => new ApiError(400, 'INVALID_REQUEST', message);
export const validationError = (message: string, status = 400): ApiError =>
  new ApiError(status, 'VALIDATION_ERROR', message);
export const notFound = (message: string): ApiError => new ApiError(404, 'NOT_FOUND', message);

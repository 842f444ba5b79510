/**
 * Every error the HTTP layer answers, whatever raised it (a route's ApiError, fastify, node's HTTP
 * parser), becomes a code of the catalogue (node/core/errors.ts) here and leaves in one shape. The route
 * error handler, the not-found handler, fastify's framework errors and the answers written on the
 * socket for requests fastify never saw (node/http/node-server.ts) all go through `errorReply`.
 */
import { ApiError, type ErrorCode } from '../core/errors';

export interface ErrorReply {
  status: number;
  body: Record<string, unknown>;
  /** The `Retry-After` header's seconds, for the codes a client should retry. */
  retryAfterSeconds?: number;
}

/** An error as it comes from fastify or node: a code, and maybe a status or a parser's reason. */
interface FrameworkError {
  code?: unknown;
  statusCode?: unknown;
  reason?: unknown;
  message?: unknown;
}

/** The longest path segment a route takes (an index name, a job id): fastify's maxParamLength. */
export const MAX_PATH_PARAM_LENGTH = 100;

/** Catalogue codes of the 4xx statuses fastify and node answer with. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'INVALID_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  417: 'EXPECTATION_FAILED',
  431: 'HEADERS_TOO_LARGE',
};

/** What node's HTTP parser (llhttp) means by the codes a client can provoke. */
const PARSER_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: 'HEADERS_TOO_LARGE',
    message: 'the request line and headers exceed 16 KB (a long query string? send it in a POST body)',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { code: 'PAYLOAD_TOO_LARGE', message: 'the chunk extensions of the request body are too large' },
  HPE_INVALID_EOF_STATE: {
    code: 'INVALID_REQUEST',
    message: 'the client closed its side of the connection before the request was complete (a body shorter than its Content-Length?)',
  },
  HPE_INVALID_CHUNK_SIZE: { code: 'INVALID_REQUEST', message: 'invalid chunked transfer encoding: a chunk size is not hexadecimal' },
  HPE_INVALID_METHOD: { code: 'INVALID_REQUEST', message: 'the request method is not an HTTP method' },
  HPE_INVALID_URL: { code: 'INVALID_REQUEST', message: 'the request target is not a valid URL path' },
  HPE_INVALID_VERSION: { code: 'INVALID_REQUEST', message: 'the request line does not end in a valid HTTP version' },
  HPE_UNEXPECTED_CONTENT_LENGTH: { code: 'INVALID_REQUEST', message: 'the request has both Content-Length and Transfer-Encoding: chunked' },
  HPE_INVALID_CONTENT_LENGTH: { code: 'INVALID_REQUEST', message: 'the Content-Length header is not a single decimal number' },
  HPE_INVALID_TRANSFER_ENCODING: { code: 'INVALID_REQUEST', message: 'the Transfer-Encoding header is not valid (chunked must be last)' },
};

function frameworkError(error: FrameworkError): ApiError {
  const code = typeof error.code === 'string' ? error.code : '';
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : undefined;
  switch (code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('INVALID_JSON', message);
    case 'FST_ERR_VALIDATION':
      return new ApiError('VALIDATION_ERROR', message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'the Content-Type header is not a valid media type');
    case 'FST_ERR_BAD_URL':
      return new ApiError('INVALID_REQUEST', `the URL is not valid: ${message ?? 'a percent-encoding is malformed'}`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // Fastify's message echoes the whole path; the limit is what the client needs.
      return new ApiError(
        'URI_TOO_LONG',
        `a path segment is longer than ${MAX_PATH_PARAM_LENGTH} characters, the most an id or a name in a path may have`,
        {},
        414,
      );
  }
  const parser = PARSER_ERRORS[code];
  if (parser !== undefined) return new ApiError(parser.code, parser.message);
  if (code.startsWith('HPE_')) {
    const reason = typeof error.reason === 'string' ? error.reason : code;
    return new ApiError('INVALID_REQUEST', `the request is not valid HTTP/1.1: ${reason}`);
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) {
    const byStatus = CODE_BY_STATUS[status] ?? 'INVALID_REQUEST';
    return new ApiError(byStatus, message, {}, status);
  }
  return new ApiError('INTERNAL_ERROR');
}

/** Any thrown value as a catalogue error; anything unknown is INTERNAL_ERROR (500). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (typeof error === 'object' && error !== null) return frameworkError(error as FrameworkError);
  return new ApiError('INTERNAL_ERROR');
}

type ErrorShape = (error: ApiError) => ErrorReply;

/** The error envelope (docs/api.md) `{ error: { code, message, ...details } }` with the code's status. */
const envelope: ErrorShape = (error) => ({ status: error.status, body: error.toBody() });

/**
 * Path families that answer errors in another product's shape (the Elasticsearch-compatible
 * `/api/v1/es` paths); the first match wins, every other path answers the envelope. This is the one
 * place such a shape plugs in: every error answer of the server comes through `errorReply`.
 */
const PATH_SHAPES: readonly { paths: RegExp; shape: ErrorShape }[] = [];

/** The status and body an error is answered with on a path (null when the request line was unreadable). */
export function errorReply(error: unknown, path: string | null): ErrorReply {
  const special = path === null ? undefined : PATH_SHAPES.find(({ paths }) => paths.test(path));
  const apiError = toApiError(error);
  const reply = (special?.shape ?? envelope)(apiError);
  return apiError.retryAfterSeconds === undefined ? reply : { ...reply, retryAfterSeconds: apiError.retryAfterSeconds };
}

/** The path of a request target, without its query string. */
export function pathOf(url: string | undefined): string | null {
  if (url === undefined) return null;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

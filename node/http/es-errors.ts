/**
 * Errors on the Elasticsearch-compatible paths carry Elasticsearch's shape beside ours: shippers and
 * the official clients read `error.type`, `error.reason` and the top-level `status`, so a refusal
 * reads as what it is (and retries follow the status) instead of as an unreadable answer.
 *
 *   { "error": { "code", "message", "type", "reason", "root_cause": [{ "type", "reason" }] }, "status" }
 */
import type { FastifyInstance } from 'fastify';

/** Elasticsearch's exception type for our error codes; other codes go by status. */
const TYPE_OF_CODE: Readonly<Record<string, string>> = {
  INVALID_JSON: 'parse_exception',
  NOT_FOUND: 'resource_not_found_exception',
  AUTH_REQUIRED: 'security_exception',
  INVALID_TOKEN: 'security_exception',
  FORBIDDEN: 'security_exception',
  RATE_LIMITED: 'es_rejected_execution_exception',
  BACKPRESSURE: 'es_rejected_execution_exception',
  SHARD_UNAVAILABLE: 'unavailable_shards_exception',
  SHUTTING_DOWN: 'node_closed_exception',
};

export function elasticErrorType(code: unknown, status: number): string {
  const byCode = typeof code === 'string' ? TYPE_OF_CODE[code] : undefined;
  return byCode ?? (status >= 500 ? 'exception' : 'illegal_argument_exception');
}

/** The error body `text` (our envelope) with Elasticsearch's members added; other bodies unchanged. */
export function withElasticShape(text: string, status: number): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return text;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return text;
  const fields = error as Record<string, unknown>;
  const type = typeof fields.type === 'string' ? fields.type : elasticErrorType(fields.code, status);
  const reason = typeof fields.reason === 'string' ? fields.reason : typeof fields.message === 'string' ? fields.message : '';
  return JSON.stringify({ ...body, error: { ...fields, type, reason, root_cause: [{ type, reason }] }, status });
}

/** Adds the shape to every error answer on the paths `paths` matches, 404s and framework errors included. */
export function installElasticErrorShape(server: FastifyInstance, paths: RegExp): void {
  server.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string' || !paths.test(request.url.split('?')[0]!)) return payload;
    return withElasticShape(payload, reply.statusCode);
  });
}

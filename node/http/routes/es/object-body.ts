/** A body of the Elasticsearch no-op endpoints, when given, must be one JSON object, as Elasticsearch requires of these requests. */
import type { FastifyRequest } from 'fastify';
import { invalidJson } from '../../../core/errors';
import { isPlainObject, tryParseJson } from '../../../ingest/common';
import { rawBody } from '../../body';

export function checkObjectBody(request: FastifyRequest): void {
  const text = rawBody(request).bytes.toString('utf8').trim();
  if (text === '') return;
  const parsed = tryParseJson(text);
  if (!parsed.ok) throw invalidJson(`failed to parse the request body: ${parsed.message}`);
  if (!isPlainObject(parsed.value)) throw invalidJson('the request body must be a JSON object');
}

/** `{"acknowledged": true}` once the body, if any, is a JSON object. */
export const acknowledged = (request: FastifyRequest): Record<string, unknown> => {
  checkObjectBody(request);
  return { acknowledged: true };
};

/**
 * Failures of the routes' JSON schemas (querystring, params, JSON bodies) as VALIDATION_ERROR with
 * a message that names the field. A property schema's `description`, when it has one, says what
 * the field must be in the schema's own words ("must be json or empty ...") instead of Ajv's.
 * Needs Ajv's `verbose` option, which puts the failing schema and value on each error.
 */
import type { FastifySchemaValidationError } from 'fastify';
import { ApiError } from '../core/errors';

/** Fastify's name for the part of the request that failed. */
type RequestPart = 'body' | 'querystring' | 'params' | 'headers';

interface VerboseError extends FastifySchemaValidationError {
  parentSchema?: { description?: string; properties?: Record<string, unknown> };
  data?: unknown;
}

const PART: Record<RequestPart, { whole: string; member: string }> = {
  body: { whole: 'the request body', member: 'field' },
  querystring: { whole: 'the query string', member: 'parameter' },
  params: { whole: 'the path', member: 'path parameter' },
  headers: { whole: 'the headers', member: 'header' },
};

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
};

function typeWords(type: unknown): string {
  const types = (Array.isArray(type) ? type : String(type).split(',')).filter((name) => name !== 'null');
  return types.map((name) => TYPE_WORDS[String(name)] ?? String(name)).join(' or ');
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function describe(error: VerboseError, part: RequestPart): string {
  const { whole, member } = PART[part];
  const path = error.instancePath.split('/').slice(1).join('.');
  const field = path === '' ? whole : path;
  const inside = path === '' ? '' : `${path}.`;
  const params = error.params;
  switch (error.keyword) {
    case 'required':
      return `${inside}${String(params.missingProperty)} is required`;
    case 'additionalProperties': {
      // Fields refused with a reason (`not: {}`) are listed by name in the schema but are not accepted.
      const accepted = Object.entries(error.parentSchema?.properties ?? {})
        .filter(([, schema]) => !(typeof schema === 'object' && schema !== null && 'not' in schema))
        .map(([name]) => name);
      return (
        `${member} "${String(params.additionalProperty)}"${path === '' ? '' : ` in ${path}`} is not accepted` +
        (accepted.length > 0 ? ` (accepted: ${accepted.join(', ')})` : '')
      );
    }
  }
  if (path === '' && part === 'body' && error.data === null) return 'the request needs a JSON object body';
  const got = error.keyword === 'not' ? '' : ` (got ${preview(error.data)})`;
  const description = error.parentSchema?.description;
  if (description !== undefined) return `${field} ${description}${got}`;
  switch (error.keyword) {
    case 'type':
      return `${field} must be ${typeWords(params.type)}${got}`;
    case 'enum':
      return `${field} must be one of ${(params.allowedValues as unknown[])
        .filter((value) => value !== null)
        .map(preview)
        .join(', ')}${got}`;
    case 'minimum':
    case 'maximum':
      return `${field} must be ${String(params.comparison)} ${String(params.limit)}${got}`;
    case 'not':
      return `${field} is not accepted here`;
    default:
      return `${field} ${error.message ?? 'is not valid'}${got}`;
  }
}

/** fastify's `schemaErrorFormatter`: the first failure (Ajv stops there) as the error answered. */
export function schemaError(errors: FastifySchemaValidationError[], part: string): ApiError {
  const first = errors[0] as VerboseError | undefined;
  if (first === undefined) return new ApiError('VALIDATION_ERROR');
  return new ApiError('VALIDATION_ERROR', describe(first, (part in PART ? part : 'body') as RequestPart));
}

/** What the metadata store throws, as the API error a route answers with (others pass through). */
import { QueryError } from '../../query/syntax';
import { invalidQuery, notFound } from '../core/errors';
import { MetadataNotFoundError } from './store';

export function metadataApiError(error: unknown): unknown {
  if (error instanceof MetadataNotFoundError) return notFound(error.message);
  if (error instanceof QueryError) return invalidQuery(error);
  return error;
}

/** What the saved-query endpoints share: the store to read, the writer to change it, and their schemas. */
import type { App } from '../../../app/app';
import { ApiError } from '../../../core/errors';
import { metadataApiError } from '../../../metadata/api-error';
import { SAVED_QUERIES } from '../../../metadata/collections';
import type { MetadataRecord, MetadataWrite } from '../../../metadata/store';

export interface SavedQueryBody {
  name: string;
  q: string;
  from?: string | null;
}

/** Present with any value: refused, the message says why. */
const setByServer = { not: {}, description: 'is set by the server: leave it out of the request' } as const;

export const SAVED_QUERY_BODY_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '\\S', description: 'must be a non-empty string' },
    q: { type: 'string', pattern: '\\S', description: 'must be a non-empty string: the query text' },
    from: { type: 'string', nullable: true },
    id: setByServer,
    created_at: setByServer,
    updated_at: setByServer,
  },
  required: ['name', 'q'],
  additionalProperties: false,
} as const;

export const ID_PARAMS = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;

/** JSON bodies are parsed by the body reader and validated against the route's schema. */
export const JSON_BODY = { bodyFormat: 'json' } as const;

/** The metadata collection saved queries are kept in. */
export const SAVED_QUERY_COLLECTION = SAVED_QUERIES.name;

/** A change through the app's metadata writer, whose authority checks the record again and assigns id and times. */
export async function writeSavedQuery(app: App, change: MetadataWrite): Promise<MetadataRecord | null> {
  try {
    return (await app.metadataWriter.write(change)).record;
  } catch (error) {
    throw metadataApiError(error);
  }
}

/** The text must be runnable, so the query length limit applies when it is saved too. */
export function checkQueryLength(app: App, q: string): void {
  const max = app.settings.query.maxQueryLength;
  if (q.length > max) throw new ApiError('QUERY_TOO_LARGE', `the query is ${q.length} characters long; query.max_query_length is ${max}`);
}

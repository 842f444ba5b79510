/** What the saved-query endpoints share: the store to read, the writer to change it, and their schemas. */
import type { FastifyRequest } from 'fastify';
import type { App } from '../../../app/app';
import { checkQueryLength } from '../../../core/errors';
import { SAVED_QUERIES } from '../../../metadata/collections';
import type { MetadataRecord, MetadataWrite } from '../../../metadata/store';
import { SET_BY_SERVER, writeRecord } from '../metadata-records';

export { ID_PARAMS, JSON_BODY } from '../metadata-records';

export interface SavedQueryBody {
  name: string;
  q: string;
  from?: string | null;
}

export const SAVED_QUERY_BODY_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '\\S', description: 'must be a non-empty string' },
    q: { type: 'string', pattern: '\\S', description: 'must be a non-empty string: the query text' },
    from: { type: 'string', nullable: true },
    id: SET_BY_SERVER,
    created_at: SET_BY_SERVER,
    updated_at: SET_BY_SERVER,
  },
  required: ['name', 'q'],
  additionalProperties: false,
} as const;

/** The metadata collection saved queries are kept in. */
export const SAVED_QUERY_COLLECTION = SAVED_QUERIES.name;

/** A change through the app's metadata writer, whose authority checks the record again and assigns id and times. */
export function writeSavedQuery(app: App, request: FastifyRequest, change: MetadataWrite): Promise<MetadataRecord | null> {
  return writeRecord(app, request, change);
}

/** The text must be runnable, so the query length limit applies when it is saved too. */
export function checkSavedQueryLength(app: App, q: string): void {
  checkQueryLength(q, app.settings.query.maxQueryLength);
}

/**
 * What the endpoints of every metadata collection (saved queries, dashboards, alerts) share: their
 * schemas' common parts, the read of one record, and writes through the app's metadata writer,
 * whose authority checks the record again and assigns id and times.
 */
import type { App } from '../../app/app';
import { metadataApiError } from '../../metadata/api-error';
import type { MetadataCollection } from '../../metadata/collections';
import { MetadataNotFoundError, type MetadataRecord, type MetadataWrite } from '../../metadata/store';

/** Present with any value: refused, the message says why. */
export const SET_BY_SERVER = { not: {}, description: 'is set by the server: leave it out of the request' } as const;
export const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;
export const ID_PARAMS = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;
/** JSON bodies are parsed by the body reader and validated against the route's schema. */
export const JSON_BODY = { bodyFormat: 'json' } as const;

export async function writeRecord(app: App, change: MetadataWrite): Promise<MetadataRecord | null> {
  try {
    return (await app.metadataWriter.write(change)).record;
  } catch (error) {
    throw metadataApiError(error);
  }
}

/** The stored record of that id; 404 NOT_FOUND naming the collection's noun when there is none. */
export function storedRecord(app: App, collection: MetadataCollection, id: string): MetadataRecord {
  const record = app.metadata.get(collection.name, id);
  if (record === undefined) throw metadataApiError(new MetadataNotFoundError(collection.name, id, collection.noun));
  return record;
}

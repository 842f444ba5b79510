/**
 * What the endpoints of every metadata collection (saved queries, dashboards, alerts) share: their
 * schemas' common parts, the read of one record, and writes through the app's metadata writer,
 * whose authority checks the record again and assigns id and times; each write is audited.
 */
import type { FastifyRequest } from 'fastify';
import type { App } from '../../app/app';
import { AUDITED_RECORDS } from '../../audit/audit-entry';
import { audited } from '../audit-request';
import { metadataApiError } from '../../metadata/api-error';
import type { MetadataCollection } from '../../metadata/collections';
import { MetadataNotFoundError, type MetadataRecord, type MetadataWrite } from '../../metadata/store';

/** Present with any value: refused, the message says why. */
export const SET_BY_SERVER = { not: {}, description: 'is set by the server: leave it out of the request' } as const;
export const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;
export const ID_PARAMS = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;
/** JSON bodies are parsed by the body reader and validated against the route's schema. */
export const JSON_BODY = { bodyFormat: 'json' } as const;

/** Writes the change and records it in the audit log (`saved_query.create`, `alert.delete`, ...), naming the record. */
export async function writeRecord(app: App, request: FastifyRequest, change: MetadataWrite): Promise<MetadataRecord | null> {
  const subject = AUDITED_RECORDS[change.collection as keyof typeof AUDITED_RECORDS];
  // A deleted record's name is read before it goes.
  const before = change.op === 'create' ? undefined : app.metadata.get(change.collection, change.id);
  const targetOf = (record: MetadataRecord | null) => {
    const named = record ?? before;
    return {
      target: change.op === 'create' ? (record === null ? null : String(record.id)) : change.id,
      targetName: named?.name === undefined ? null : String(named.name),
    };
  };
  return audited(app, request, `${subject}.${change.op}`, targetOf, async () => {
    try {
      return (await app.metadataWriter.write(change)).record;
    } catch (error) {
      throw metadataApiError(error);
    }
  });
}

/** The stored record of that id; 404 NOT_FOUND naming the collection's noun when there is none. */
export function storedRecord(app: App, collection: MetadataCollection, id: string): MetadataRecord {
  const record = app.metadata.get(collection.name, id);
  if (record === undefined) throw metadataApiError(new MetadataNotFoundError(collection.name, id, collection.noun));
  return record;
}

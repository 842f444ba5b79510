/** `GET /queries/{id}`: one saved query. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { metadataApiError } from '../../../metadata/api-error';
import { SAVED_QUERIES } from '../../../metadata/collections';
import { MetadataNotFoundError } from '../../../metadata/store';
import { SAVED_QUERY_COLLECTION, ID_PARAMS } from './saved-queries';

export function getSavedQueryRoute(server: FastifyInstance, app: App): void {
  server.get<{ Params: { id: string } }>('/queries/:id', { schema: { params: ID_PARAMS } }, async (request) => {
    const record = app.metadata.get(SAVED_QUERY_COLLECTION, request.params.id);
    if (record === undefined)
      throw metadataApiError(new MetadataNotFoundError(SAVED_QUERY_COLLECTION, request.params.id, SAVED_QUERIES.noun));
    return { data: record };
  });
}

/**
 * Saved queries (docs/api.md "Saved queries"): `GET|POST /queries`, `GET|PUT|DELETE /queries/{id}`.
 * Reads come from the node's metadata store; writes go through the app's metadata writer, whose
 * authority checks the record again (the query text must parse) and assigns id and times.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../app/app';
import { ApiError } from '../../core/errors';
import { metadataApiError } from '../../metadata/api-error';
import { SAVED_QUERIES } from '../../metadata/collections';
import { MetadataNotFoundError, type MetadataRecord, type MetadataWrite } from '../../metadata/store';

interface SavedQueryBody {
  name: string;
  q: string;
  from?: string | null;
}

/** Present with any value: refused, the message says why. */
const setByServer = { not: {}, description: 'is set by the server: leave it out of the request' } as const;

const SAVED_QUERY_BODY_SCHEMA = {
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

const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;

const ID_PARAMS = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;

/** JSON bodies are parsed by the body reader and validated against the route's schema. */
const JSON_BODY = { bodyFormat: 'json' } as const;

export function savedQueryRoutes(app: App): FastifyPluginAsync {
  const write = async (change: MetadataWrite): Promise<MetadataRecord | null> => {
    try {
      return (await app.metadataWriter.write(change)).record;
    } catch (error) {
      throw metadataApiError(error);
    }
  };

  /** The text must be runnable, so the query length limit applies when it is saved too. */
  const checkLength = (q: string): void => {
    const max = app.settings.query.maxQueryLength;
    if (q.length > max) throw new ApiError('QUERY_TOO_LARGE', `the query is ${q.length} characters long; query.max_query_length is ${max}`);
  };

  const collection = SAVED_QUERIES.name;

  return async (server) => {
    server.get('/queries', { schema: { querystring: NO_PARAMETERS } }, async () => {
      return { data: { queries: app.metadata.list(collection) } };
    });

    server.post<{ Body: SavedQueryBody }>('/queries', { schema: { body: SAVED_QUERY_BODY_SCHEMA }, config: JSON_BODY }, async (request, reply) => {
      checkLength(request.body.q);
      const record = await write({ collection, op: 'create', record: { ...request.body } });
      return reply.status(201).send({ data: record });
    });

    server.get<{ Params: { id: string } }>('/queries/:id', { schema: { params: ID_PARAMS } }, async (request) => {
      const record = app.metadata.get(collection, request.params.id);
      if (record === undefined) throw metadataApiError(new MetadataNotFoundError(collection, request.params.id, SAVED_QUERIES.noun));
      return { data: record };
    });

    server.put<{ Params: { id: string }; Body: SavedQueryBody }>(
      '/queries/:id',
      { schema: { params: ID_PARAMS, body: SAVED_QUERY_BODY_SCHEMA }, config: JSON_BODY },
      async (request) => {
        checkLength(request.body.q);
        return { data: await write({ collection, op: 'replace', id: request.params.id, record: { ...request.body } }) };
      },
    );

    server.delete<{ Params: { id: string } }>('/queries/:id', { schema: { params: ID_PARAMS } }, async (request, reply) => {
      await write({ collection, op: 'delete', id: request.params.id });
      return reply.status(204).send();
    });
  };
}

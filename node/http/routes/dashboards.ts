/**
 * Dashboards (docs/api.md "Dashboards"): `GET|POST /dashboards`, `GET|PUT|DELETE /dashboards/{id}`.
 * Reads come from the node's metadata store; writes go through the app's metadata writer, whose
 * authority checks the record again (node/metadata/dashboard.ts) and assigns id and times.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../app';
import { metadataApiError } from '../../metadata/api-error';
import { DASHBOARDS } from '../../metadata/collections';
import { dashboardListItem, dashboardRecord } from '../../metadata/dashboard';
import { MetadataNotFoundError, type MetadataRecord, type MetadataWrite } from '../../metadata/store';

/** Present with any value: refused, the message says why. */
const setByServer = { not: {}, description: 'is set by the server: leave it out of the request' } as const;

/** The shape only; dashboardRecord checks every field and names it by its path (`panels[1].position.x`). */
const DASHBOARD_BODY_SCHEMA = {
  type: 'object',
  properties: { id: setByServer, created_at: setByServer, updated_at: setByServer },
} as const;

const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;
const ID_PARAMS = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;
const JSON_BODY = { bodyFormat: 'json' } as const;

export function dashboardRoutes(app: App): FastifyPluginAsync {
  const collection = DASHBOARDS.name;

  /** Checked here first for the query length limit, which the store's authority does not know. */
  const write = async (change: MetadataWrite): Promise<MetadataRecord | null> => {
    if (change.op !== 'delete') dashboardRecord(change.record, app.settings.query.maxQueryLength);
    try {
      return (await app.metadataWriter.write(change)).record;
    } catch (error) {
      throw metadataApiError(error);
    }
  };

  return async (server) => {
    server.get('/dashboards', { schema: { querystring: NO_PARAMETERS } }, async () => {
      return { data: { dashboards: app.metadata.list(collection).map(dashboardListItem) } };
    });

    server.post<{ Body: Record<string, unknown> }>('/dashboards', { schema: { body: DASHBOARD_BODY_SCHEMA }, config: JSON_BODY }, async (request, reply) => {
      const record = await write({ collection, op: 'create', record: { ...request.body } });
      return reply.status(201).send({ data: record });
    });

    server.get<{ Params: { id: string } }>('/dashboards/:id', { schema: { params: ID_PARAMS } }, async (request) => {
      const record = app.metadata.get(collection, request.params.id);
      if (record === undefined) throw metadataApiError(new MetadataNotFoundError(collection, request.params.id, DASHBOARDS.noun));
      return { data: record };
    });

    server.put<{ Params: { id: string }; Body: Record<string, unknown> }>(
      '/dashboards/:id',
      { schema: { params: ID_PARAMS, body: DASHBOARD_BODY_SCHEMA }, config: JSON_BODY },
      async (request) => ({ data: await write({ collection, op: 'replace', id: request.params.id, record: { ...request.body } }) }),
    );

    server.delete<{ Params: { id: string } }>('/dashboards/:id', { schema: { params: ID_PARAMS } }, async (request, reply) => {
      await write({ collection, op: 'delete', id: request.params.id });
      return reply.status(204).send();
    });
  };
}

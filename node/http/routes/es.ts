/**
 * Elasticsearch-compatible ingest: `GET /es/` (client handshake), `POST /es/_bulk` and its alias
 * `/ingest/bulk` (and `/es/{index}/_bulk`, whose index names actions without `_index`), `POST /es/{index}/_doc` (and `PUT|POST /es/{index}/_doc|_create/{id}`);
 * the calls shippers make around writing are no-ops in es-admin.ts. Errors here also carry
 * Elasticsearch's shape (es-errors.ts).
 * Every answer carries `x-elastic-product: Elasticsearch` (set in the server's onRequest hook),
 * which the official clients check.
 */
import crypto from 'crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app/app';
import { ApiError } from '../../core/errors';
import { bulkError } from '../../ingest/bulk';
import type { IngestParams } from '../../ingest/format-dispatch';
import { summaryOf, type IngestFlow } from '../ingest-flow';
import { ES_CLUSTER_NAME, ES_CLUSTER_UUID, esAdminRoutes } from './es-admin';

/** A request-unique seed for generated document ids, stored with the record so replay gives the same ids. */
function idSeed(): string {
  return crypto.randomBytes(9).toString('base64url');
}

export function esRoutes(app: App, flow: IngestFlow): FastifyPluginAsync {

  const bulk = async (request: FastifyRequest<{ Params: { index?: string } }>, reply: FastifyReply) => {
    const started = performance.now();
    const body = flow.begin('bulk', request);
    const params: IngestParams = { format: 'bulk', ctx: flow.context(), idSeed: idSeed(), pathIndex: request.params.index };
    const parsed = await flow.ingest(request, 'bulk', params, body.bytes);
    const result = summaryOf(parsed, 'bulk');
    flow.itemFailures('bulk', result.items.length - parsed.events);
    return reply.send({ took: Math.round(performance.now() - started), errors: result.errors, items: result.items });
  };

  const doc = async (request: FastifyRequest<{ Params: { index: string; id?: string } }>, reply: FastifyReply) => {
    const body = flow.begin('doc', request);
    const params: IngestParams = {
      format: 'doc',
      ctx: flow.context(),
      idSeed: request.params.id ?? idSeed(),
      pathIndex: request.params.index,
    };
    const parsed = await flow.ingest(request, 'doc', params, body.bytes);
    const result = summaryOf(parsed, 'doc');
    if (result.refusal !== null) {
      // The envelope, with the item error's Elasticsearch `type` and `reason` beside code and message.
      const error = new ApiError('VALIDATION_ERROR', result.refusal.message, { ...bulkError(result.refusal) });
      flow.failed('doc', error);
      throw error;
    }
    const id = request.params.id ?? result.id;
    return reply.status(201).send({
      _index: request.params.index,
      _id: id,
      _version: 1,
      result: 'created',
      _shards: { total: 1, successful: 1, failed: 0 },
      _seq_no: 0,
      _primary_term: 1,
    });
  };

  return async (server) => {
    server.get('/es', async () => ({
      name: app.settings.cluster.nodeId,
      cluster_name: ES_CLUSTER_NAME,
      cluster_uuid: ES_CLUSTER_UUID,
      version: {
        number: '8.0.0',
        build_flavor: 'default',
        build_type: 'trawl',
        lucene_version: '9.0.0',
        minimum_wire_compatibility_version: '7.17.0',
        minimum_index_compatibility_version: '7.0.0',
      },
      tagline: 'You Know, for Search',
    }));
    server.post('/es/_bulk', bulk);
    server.put('/es/_bulk', bulk);
    server.post('/ingest/bulk', bulk);
    server.post('/es/:index/_bulk', bulk);
    server.put('/es/:index/_bulk', bulk);
    server.post('/es/:index/_doc', doc);
    server.post('/es/:index/_doc/:id', doc);
    server.put('/es/:index/_doc/:id', doc);
    server.post('/es/:index/_create/:id', doc);
    server.put('/es/:index/_create/:id', doc);
    await server.register(esAdminRoutes(app));
  };
}

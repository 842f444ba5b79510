/**
 * `POST|PUT /es/_bulk` and its alias `POST /ingest/bulk`, and `POST|PUT /es/{index}/_bulk`, whose
 * index names actions without `_index`: one item per action, as Elasticsearch answers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IngestParams } from '../../../ingest/format-dispatch';
import { summaryOf, type IngestFlow } from '../../ingest-flow';
import { idSeed } from './id-seed';

export function bulkRoutes(server: FastifyInstance, flow: IngestFlow): void {
  const bulk = async (request: FastifyRequest<{ Params: { index?: string } }>, reply: FastifyReply) => {
    const started = performance.now();
    const body = flow.begin('bulk', request);
    const params: IngestParams = { format: 'bulk', ctx: flow.context(), idSeed: idSeed(), pathIndex: request.params.index };
    const parsed = await flow.ingest(request, 'bulk', params, body.bytes);
    const result = summaryOf(parsed, 'bulk');
    flow.itemFailures('bulk', result.items.length - parsed.events);
    return reply.send({ took: Math.round(performance.now() - started), errors: result.errors, items: result.items });
  };
  server.post('/es/_bulk', bulk);
  server.put('/es/_bulk', bulk);
  server.post('/ingest/bulk', bulk);
  server.post('/es/:index/_bulk', bulk);
  server.put('/es/:index/_bulk', bulk);
}

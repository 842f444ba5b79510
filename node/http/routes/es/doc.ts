/** `POST /es/{index}/_doc` and `PUT|POST /es/{index}/_doc|_create/{id}`: one document; 201 `created`. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../core/errors';
import { bulkError } from '../../../ingest/bulk';
import type { IngestParams } from '../../../ingest/format-dispatch';
import { summaryOf, type IngestFlow } from '../../ingest-flow';
import { idSeed } from './id-seed';

export function docRoutes(server: FastifyInstance, flow: IngestFlow): void {
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
  server.post('/es/:index/_doc', doc);
  server.post('/es/:index/_doc/:id', doc);
  server.put('/es/:index/_doc/:id', doc);
  server.post('/es/:index/_create/:id', doc);
  server.put('/es/:index/_create/:id', doc);
}

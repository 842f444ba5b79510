/** `PUT /es/{index}`: acknowledged with the index name once it is valid; events always land in index `main`. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkIndexName } from './index-name';
import { checkObjectBody } from './object-body';

type Indexed = FastifyRequest<{ Params: { index: string } }>;

export function createIndexRoute(server: FastifyInstance): void {
  server.put('/es/:index', async (request: Indexed) => {
    checkIndexName(request.params.index);
    checkObjectBody(request);
    return { acknowledged: true, shards_acknowledged: true, index: request.params.index };
  });
}

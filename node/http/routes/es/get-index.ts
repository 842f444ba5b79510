/** `GET /es/{index}`: 404 `index_not_found_exception`, as for an index never created. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../core/errors';
import { checkIndexName } from './index-name';

type Indexed = FastifyRequest<{ Params: { index: string } }>;

export function getIndexRoute(server: FastifyInstance): void {
  server.get('/es/:index', async (request: Indexed) => {
    checkIndexName(request.params.index);
    throw new ApiError('NOT_FOUND', `no such index [${request.params.index}]`, {
      type: 'index_not_found_exception',
      index: request.params.index,
    });
  });
}

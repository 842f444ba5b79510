/**
 * `PUT|POST|GET /es/{kind}/{name}` for index templates (composable and legacy), component templates
 * and lifecycle policies: creation is acknowledged and its body ignored, so a lookup answers 404,
 * as for something never created.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../core/errors';
import { acknowledged } from './object-body';

type Named = FastifyRequest<{ Params: { name: string } }>;

function notFound(type: string, reason: string): ApiError {
  return new ApiError('NOT_FOUND', reason, { type });
}

export function templateRoutes(server: FastifyInstance): void {
  // Index templates (composable and legacy), component templates and lifecycle policies.
  const kinds: [string, string, (name: string) => string][] = [
    ['_index_template', 'resource_not_found_exception', (name) => `index template matching [${name}] not found`],
    ['_template', 'resource_not_found_exception', (name) => `index template matching [${name}] not found`],
    ['_component_template', 'resource_not_found_exception', (name) => `component template matching [${name}] not found`],
    ['_ilm/policy', 'resource_not_found_exception', (name) => `Lifecycle policy not found: ${name}`],
  ];
  for (const [path, type, reason] of kinds) {
    server.put(`/es/${path}/:name`, async (request: Named) => acknowledged(request));
    server.post(`/es/${path}/:name`, async (request: Named) => acknowledged(request));
    server.get(`/es/${path}/:name`, async (request: Named) => {
      throw notFound(type, reason(request.params.name));
    });
  }
}

/** `POST /otlp/v1/logs`: OTLP/HTTP logs in the JSON encoding (protobuf answers 415). */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../../errors';
import type { IngestParams } from '../../ingest/format-dispatch';
import type { IngestFlow } from '../ingest-flow';

export function otlpRoutes(flow: IngestFlow): FastifyPluginAsync {
  return async (server) => {
    server.post('/otlp/v1/logs', async (request, reply) => {
      const type = String(request.headers['content-type'] ?? '').toLowerCase();
      if (!type.startsWith('application/json')) {
        flow.failed('otlp', new ApiError('UNSUPPORTED_MEDIA_TYPE', ''));
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `OTLP logs must be sent as JSON (Content-Type: application/json); got "${type || 'none'}". ` +
            'Configure the exporter for http/json instead of http/protobuf.',
        );
      }
      const body = flow.begin('otlp', request);
      const params: IngestParams = { format: 'otlp', ctx: flow.context() };
      await flow.ingest(request, 'otlp', params, body.bytes);
      return reply.status(200).send();
    });
  };
}

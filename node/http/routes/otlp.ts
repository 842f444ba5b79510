/**
 * `POST /otlp/v1/logs`: OTLP/HTTP logs in the JSON encoding (protobuf answers 415). All records
 * accepted: 200 with an empty body; some refused: 200 with OTLP's `partialSuccess`.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../../core/errors';
import type { IngestParams } from '../../ingest/format-dispatch';
import { partialSuccess } from '../../ingest/otlp';
import { summaryOf, type IngestFlow } from '../ingest-flow';

/**
 * The 415 answer to protobuf (docs/api.md: OTLP/HTTP JSON only), saying how each SDK can send JSON: which
 * ones have a JSON exporter, and for the others the OpenTelemetry Collector's otlphttp exporter.
 */
export function otlpJsonOnly(contentType: string): string {
  return (
    `OTLP logs must be sent as JSON (Content-Type: application/json); got "${contentType || 'none'}", and protobuf is not accepted. ` +
    'Node: @opentelemetry/exporter-logs-otlp-http sends JSON (not the -proto exporter). ' +
    'Python: the opentelemetry-exporter-otlp-json-http package. ' +
    'Go, Java and other SDKs whose OTLP/HTTP logs exporter sends only protobuf: export to an OpenTelemetry Collector ' +
    'and forward with its otlphttp exporter set to `encoding: json`.'
  );
}

export function otlpRoutes(flow: IngestFlow): FastifyPluginAsync {
  return async (server) => {
    server.post('/otlp/v1/logs', async (request, reply) => {
      const type = String(request.headers['content-type'] ?? '').toLowerCase();
      if (!type.startsWith('application/json')) {
        flow.failed('otlp', new ApiError('UNSUPPORTED_MEDIA_TYPE', ''));
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', otlpJsonOnly(type));
      }
      const body = flow.begin('otlp', request);
      const params: IngestParams = { format: 'otlp', ctx: flow.context() };
      const parsed = await flow.ingest(request, 'otlp', params, body.bytes);
      const result = summaryOf(parsed, 'otlp');
      flow.itemFailures('otlp', result.rejected);
      if (result.rejected === 0) return reply.status(200).send();
      return reply.status(200).send(partialSuccess(result.rejected, result.errors));
    });
  };
}

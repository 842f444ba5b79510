/** `POST /ingest/hec`: event-collector lines, answered in the event collector's shape; an error (noEventAccepted) when objects came and none was accepted. */
import type { FastifyInstance } from 'fastify';
import type { IngestParams } from '../../../ingest/format-dispatch';
import { noEventAccepted } from '../../../ingest/hec';
import { summaryOf, type IngestFlow } from '../../ingest-flow';

export function hecIngestRoute(server: FastifyInstance, flow: IngestFlow): void {
  server.post('/ingest/hec', async (request, reply) => {
    const body = flow.begin('hec', request);
    const params: IngestParams = { format: 'hec', ctx: flow.context() };
    const parsed = await flow.ingest(request, 'hec', params, body.bytes);
    const result = summaryOf(parsed, 'hec');
    flow.itemFailures('hec', result.failed);
    if (parsed.events === 0 && result.failed > 0) {
      const error = noEventAccepted(result.failed, result.errors);
      flow.failed('hec', error);
      throw error;
    }
    const answer: Record<string, unknown> = { text: 'Success', code: 0, accepted: parsed.events, failed: result.failed };
    if (result.errors.length > 0) answer.errors = result.errors;
    return reply.send(answer);
  });
}

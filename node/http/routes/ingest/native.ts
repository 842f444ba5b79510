/** `POST /ingest`: a JSON array of events; the answer counts those accepted and those refused. */
import type { FastifyInstance } from 'fastify';
import type { IngestParams } from '../../../ingest/format-dispatch';
import { summaryOf, type IngestFlow } from '../../ingest-flow';

export function nativeIngestRoute(server: FastifyInstance, flow: IngestFlow): void {
  server.post('/ingest', async (request) => {
    const body = flow.begin('ingest', request);
    const params: IngestParams = { format: 'native', ctx: flow.context() };
    const parsed = await flow.ingest(request, 'ingest', params, body.bytes);
    const result = summaryOf(parsed, 'native');
    flow.itemFailures('ingest', result.failed);
    const data: Record<string, unknown> = { accepted: parsed.events, failed: result.failed };
    if (result.errors.length > 0) data.errors = result.errors;
    return { data };
  });
}

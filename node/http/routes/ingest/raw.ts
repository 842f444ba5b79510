/**
 * `POST /ingest/raw`: text lines, their source, type, index and host from `x-*` headers. A body over
 * ingest.max_body_size is cut after its last complete line within the limit, with a warning.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { App } from '../../../app/app';
import type { IngestParams } from '../../../ingest/format-dispatch';
import type { RawHeaders } from '../../../ingest/raw';
import { summaryOf, type IngestFlow } from '../../ingest-flow';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) return value[0];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** Cuts a truncated body after its last complete line; returns the kept bytes and the bytes dropped. */
function completeLines(bytes: Buffer): { kept: Buffer; dropped: number } {
  const lastNewline = bytes.lastIndexOf(0x0a);
  const kept = lastNewline === -1 ? bytes.subarray(0, 0) : bytes.subarray(0, lastNewline + 1);
  return { kept, dropped: bytes.length - kept.length };
}

export function rawIngestRoute(server: FastifyInstance, app: App, flow: IngestFlow): void {
  server.post('/ingest/raw', { config: { bodyLimitMode: 'truncate' } }, async (request) => {
    const body = flow.begin('raw', request);
    const raw: RawHeaders = {
      source: header(request, 'x-source'),
      sourcetype: header(request, 'x-source-type'),
      index: header(request, 'x-index'),
      host: header(request, 'x-host'),
    };
    const params: IngestParams = { format: 'raw', ctx: flow.context(), raw };
    const { kept, dropped } = body.truncated ? completeLines(body.bytes) : { kept: body.bytes, dropped: 0 };
    const parsed = await flow.ingest(request, 'raw', params, kept);
    const result = summaryOf(parsed, 'raw');
    flow.itemFailures('raw', result.failed);
    const data: Record<string, unknown> = { accepted: parsed.events, failed: result.failed, truncated: body.truncated };
    if (result.errors.length > 0) data.errors = result.errors;
    if (body.truncated) {
      data.warning =
        `the body exceeded ingest.max_body_size (${app.settings.ingest.maxBodySizeBytes} bytes): ` +
        `it was cut after the last complete line within the limit and ${dropped} bytes of a partial line plus ` +
        `everything after the limit were not ingested`;
    }
    return { data };
  });
}

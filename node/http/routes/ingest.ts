/**
 * `POST /ingest` (JSON array), `/ingest/raw` (text lines), `/ingest/hec` (event-collector lines).
 * The bulk alias `/ingest/bulk` is registered with the Elasticsearch routes (same handler).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { App } from '../../app';
import { invalidRequest } from '../../errors';
import { parseHecLines } from '../../ingest/hec';
import { parseNativeBatch } from '../../ingest/native';
import { parseRawLines, type RawHeaders } from '../../ingest/raw';
import type { IngestParams } from '../../ingest-record';
import type { IngestFlow, IngestEndpoint } from '../ingest-flow';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) return value[0];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** Runs a parser, counting a whole-request failure before rethrowing it. */
function parsed<T>(flow: IngestFlow, endpoint: IngestEndpoint, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    flow.failed(endpoint, error);
    throw error;
  }
}

/** Cuts a truncated body after its last complete line; returns the kept text and the bytes dropped. */
function completeLines(bytes: Buffer): { text: string; dropped: number } {
  const lastNewline = bytes.lastIndexOf(0x0a);
  const kept = lastNewline === -1 ? bytes.subarray(0, 0) : bytes.subarray(0, lastNewline + 1);
  return { text: kept.toString('utf8'), dropped: bytes.length - kept.length };
}

export function ingestRoutes(app: App, flow: IngestFlow): FastifyPluginAsync {
  return async (server) => {
    server.post('/ingest', async (request) => {
      const body = flow.begin('ingest', request);
      const params: IngestParams = { format: 'native', ctx: flow.context() };
      const result = parsed(flow, 'ingest', () => parseNativeBatch(body.bytes.toString('utf8'), params.ctx));
      await flow.commit(request, 'ingest', params, body.bytes, result.events);
      flow.itemFailures('ingest', result.failed);
      const data: Record<string, unknown> = { accepted: result.events.length, failed: result.failed };
      if (result.errors.length > 0) data.errors = result.errors;
      return { data };
    });

    server.post('/ingest/raw', { config: { bodyLimitMode: 'truncate' } }, async (request) => {
      const body = flow.begin('raw', request);
      const raw: RawHeaders = {
        source: header(request, 'x-source'),
        sourcetype: header(request, 'x-source-type'),
        index: header(request, 'x-index'),
        host: header(request, 'x-host'),
      };
      const params: IngestParams = { format: 'raw', ctx: flow.context(), raw };
      const { text, dropped } = body.truncated ? completeLines(body.bytes) : { text: body.bytes.toString('utf8'), dropped: 0 };
      const stored = body.truncated ? Buffer.from(text) : body.bytes;
      const result = parsed(flow, 'raw', () => parseRawLines(text, raw, params.ctx));
      await flow.commit(request, 'raw', params, stored, result.events);
      const data: Record<string, unknown> = { accepted: result.events.length, truncated: body.truncated };
      if (body.truncated) {
        data.warning =
          `the body exceeded ingest.max_body_size (${app.settings.ingest.maxBodySizeBytes} bytes): ` +
          `it was cut after the last complete line within the limit and ${dropped} bytes of a partial line plus ` +
          `everything after the limit were not ingested`;
      }
      return { data };
    });

    server.post('/ingest/hec', async (request, reply) => {
      const body = flow.begin('hec', request);
      const params: IngestParams = { format: 'hec', ctx: flow.context() };
      const text = body.bytes.toString('utf8');
      if (text.trim() === '') throw invalidRequest('the body holds no event (send one JSON object per line)');
      const result = parsed(flow, 'hec', () => parseHecLines(text, params.ctx));
      await flow.commit(request, 'hec', params, body.bytes, result.events);
      flow.itemFailures('hec', result.skipped);
      const answer: Record<string, unknown> = { text: 'Success', code: 0, accepted: result.events.length, skipped: result.skipped };
      if (result.errors.length > 0) answer.errors = result.errors;
      return reply.send(answer);
    });
  };
}

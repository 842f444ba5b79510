/**
 * What every ingest route does around its parser: refuse early under backpressure, parse with a
 * fixed context, make the accepted events durable (the write-buffer record) and count them.
 */
import type { FastifyRequest } from 'fastify';
import type { LogEvent } from '../../storage/event';
import type { App } from '../app';
import { ApiError } from '../errors';
import type { IngestContext } from '../ingest/common';
import { encodeIngestRecord, INGEST_RECORD_KIND, type IngestParams } from '../ingest-record';
import { rawBody, type RawBody } from './body';
import type { IngestRateLimiter } from './rate-limit';

export type IngestEndpoint = 'ingest' | 'raw' | 'hec' | 'bulk' | 'doc' | 'otlp';

function backpressure(app: App): ApiError {
  return new ApiError(
    503,
    'BACKPRESSURE',
    `the write buffer holds ${app.engine.buffer.bufferedEvents} events (limit ingest.max_buffered_events = ${app.settings.ingest.maxBufferedEvents}); retry shortly`,
  );
}

export class IngestFlow {
  constructor(
    private readonly app: App,
    private readonly limiter: IngestRateLimiter,
  ) {}

  /** The parser context of a request received now. */
  context(): IngestContext {
    return { receivedAtMicros: Date.now() * 1000, pipeline: this.app.settings.ingest.pipeline };
  }

  /** Reads the body; refuses with 503 before any parsing when the buffer is already full. */
  begin(endpoint: IngestEndpoint, request: FastifyRequest): RawBody {
    const { app } = this;
    app.metrics.ingestRequests.inc({ endpoint });
    if (app.engine.buffer.bufferedEvents >= app.settings.ingest.maxBufferedEvents) {
      app.metrics.ingestErrors.inc({ endpoint, code: 'BACKPRESSURE' });
      throw backpressure(app);
    }
    const body = rawBody(request);
    app.metrics.ingestBytes.inc({ endpoint }, body.bytes.length);
    return body;
  }

  /** Stores accepted events; resolves once they are durable (the request may then be acknowledged). */
  async commit(request: FastifyRequest, endpoint: IngestEndpoint, params: IngestParams, body: Buffer, events: LogEvent[]): Promise<void> {
    const { app } = this;
    if (events.length === 0) return;
    try {
      this.limiter.take(request.ip, events.length);
    } catch (error) {
      app.metrics.ingestErrors.inc({ endpoint, code: 'RATE_LIMITED' });
      throw error;
    }
    if (app.engine.buffer.bufferedEvents + events.length > app.settings.ingest.maxBufferedEvents) {
      app.metrics.ingestErrors.inc({ endpoint, code: 'BACKPRESSURE' });
      throw backpressure(app);
    }
    app.inFlight++;
    try {
      await app.engine.append(events, INGEST_RECORD_KIND, encodeIngestRecord(params, body));
    } finally {
      app.inFlight--;
    }
    app.metrics.ingestEvents.inc({ endpoint }, events.length);
  }

  /** Counts a parse failure of a whole request. */
  failed(endpoint: IngestEndpoint, error: unknown): void {
    const code = error instanceof ApiError ? error.code : 'INTERNAL_ERROR';
    this.app.metrics.ingestErrors.inc({ endpoint, code });
  }

  itemFailures(endpoint: IngestEndpoint, count: number): void {
    if (count > 0) this.app.metrics.ingestErrors.inc({ endpoint, code: 'ITEM_FAILED' }, count);
  }
}

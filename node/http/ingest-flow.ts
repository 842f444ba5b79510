/**
 * What every ingest route does around its parser: refuse early under backpressure, parse with a
 * fixed context, make the accepted events durable (the write-buffer record) and count them, and
 * the refused ones by reason.
 */
import type { FastifyRequest } from 'fastify';
import type { App } from '../app/app';
import type { ClusterWritePath } from '../cluster/write-path';
import { ApiError } from '../core/errors';
import { ingestContext, type IngestContext } from '../ingest/common';
import type { ParsedBody } from '../ingest/parser-pool';
import type { IngestParams, ParseSummary } from '../ingest/format-dispatch';
import { rawBody, type RawBody } from './body';
import type { IngestRateLimiter } from './rate-limit';

export type IngestEndpoint = 'ingest' | 'raw' | 'hec' | 'bulk' | 'doc' | 'otlp';

function backpressure(app: App): ApiError {
  const limit = app.shares.bufferedEventsLimit();
  const bound =
    limit < app.settings.ingest.maxBufferedEvents
      ? `${limit}: queries are running, and ingest may fill server.ingest_share = ${app.settings.server.ingestShare} of ingest.max_buffered_events = ${app.settings.ingest.maxBufferedEvents}`
      : `limit ingest.max_buffered_events = ${app.settings.ingest.maxBufferedEvents}`;
  return new ApiError(
    'BACKPRESSURE',
    `the write buffer holds ${app.engine.buffer.bufferedEvents} events (${bound}); nothing was stored; retry shortly`,
  );
}

/** Refused before parsing: queries run on the node and ingest has taken its share of the parse workers. */
function busyWithQueries(app: App, limit: number): ApiError {
  return new ApiError(
    'BACKPRESSURE',
    `queries are running on this node, and ingest takes ${limit} request${limit === 1 ? '' : 's'} at a time meanwhile (server.ingest_share = ${app.settings.server.ingestShare}); nothing was stored; retry shortly`,
  );
}

export class IngestFlow {
  constructor(
    private readonly app: App,
    private readonly limiter: IngestRateLimiter,
  ) {}

  /** The parser context of a request received now, from the live settings (PATCH /config and SIGHUP apply at once). */
  context(): IngestContext {
    const { settings } = this.app;
    return ingestContext(Date.now(), settings.ingest.pipeline, settings.retentionMs, settings.ingest.maxFutureMs);
  }

  /** Reads the body; refuses with 503 before any parsing when the buffer is already full. */
  begin(endpoint: IngestEndpoint, request: FastifyRequest): RawBody {
    const { app } = this;
    app.metrics.ingestRequests.inc({ endpoint });
    if (app.engine.buffer.bufferedEvents >= app.shares.bufferedEventsLimit()) {
      if (app.engine.buffer.bufferedEvents < app.settings.ingest.maxBufferedEvents) app.shares.refusedAtBuffer();
      app.metrics.ingestErrors.inc({ endpoint, code: 'BACKPRESSURE' });
      throw backpressure(app);
    }
    const body = rawBody(request);
    app.metrics.ingestBytes.inc({ endpoint }, body.bytes.length);
    return body;
  }

  /**
   * Parses a body (off the main thread when it is large) and stores its accepted events; resolves
   * once they are durable, so the request may then be acknowledged. A whole-request failure is
   * counted and rethrown.
   */
  async ingest(request: FastifyRequest, endpoint: IngestEndpoint, params: IngestParams, body: Buffer): Promise<ParsedBody> {
    const { app } = this;
    const release = await app.shares.admitIngest();
    if (release === null) {
      app.metrics.ingestErrors.inc({ endpoint, code: 'BACKPRESSURE' });
      throw busyWithQueries(app, app.shares.ingestLimit() ?? 1);
    }
    let parsed: ParsedBody;
    try {
      parsed = await app.ingestParser.parse(params, body, app.engine.buffer.currentPlacement);
    } catch (error) {
      this.failed(endpoint, error);
      throw error;
    } finally {
      // The share is of the parse workers: the next request's parse starts while this one is
      // stored, so the worker it may use never waits on the write.
      release();
    }
    await this.commit(request, endpoint, parsed);
    // Counted once the request stands: a request refused whole (503, 429) is sent again.
    app.metrics.refused(params.format, parsed.refused);
    return parsed;
  }

  private async commit(request: FastifyRequest, endpoint: IngestEndpoint, parsed: ParsedBody): Promise<void> {
    const { app } = this;
    if (parsed.events === 0) return;
    try {
      this.limiter.take(request.ip, parsed.events);
    } catch (error) {
      app.metrics.ingestErrors.inc({ endpoint, code: 'RATE_LIMITED' });
      throw error;
    }
    const clusterWrites = app.clusterWrites;
    if (clusterWrites !== null) {
      await this.commitToOwners(clusterWrites, endpoint, parsed);
    } else {
      if (app.engine.buffer.bufferedEvents + parsed.events > app.settings.ingest.maxBufferedEvents) {
        app.metrics.ingestErrors.inc({ endpoint, code: 'BACKPRESSURE' });
        throw backpressure(app);
      }
      await app.engine.appendRecord(parsed.chunks, parsed.record);
    }
    app.metrics.ingestEvents.inc({ endpoint }, parsed.events);
    // Durable and about to be acknowledged: live tails hear of them (just after this turn), from the
    // node that took the request only (owners and replicas do not publish), so each tail gets an event once.
    app.tail.bus.publish(parsed.chunks);
  }

  /** In a cluster: every owner of each key stores its share (or it is hinted); each checks its own write buffer. */
  private async commitToOwners(writes: ClusterWritePath, endpoint: IngestEndpoint, parsed: ParsedBody): Promise<void> {
    try {
      await writes.router.write(parsed.chunks, parsed.record, this.app.engine.buffer.currentPlacement);
    } catch (error) {
      this.failed(endpoint, error);
      throw error;
    }
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

/** The summary of a parse, narrowed to the format the route asked for. */
export function summaryOf<F extends ParseSummary['format']>(parsed: ParsedBody, format: F): Extract<ParseSummary, { format: F }> {
  if (parsed.summary.format !== format) throw new Error(`expected a ${format} parse summary, got ${parsed.summary.format}`);
  return parsed.summary as Extract<ParseSummary, { format: F }>;
}

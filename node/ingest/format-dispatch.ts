/**
 * One ingest request's parse: its format and inputs (IngestParams), the parser they name, and the
 * route's summary. Parsers are deterministic: the same body and params give the same events.
 */
import { isAscii } from 'buffer';
import type { LogEvent } from '../../storage/event';
import { invalidRequest } from '../errors';
import { parseBulk, parseEsDoc, type BulkItem } from './bulk';
import type { IngestContext } from './common';
import { parseHecLines } from './hec';
import { parseNativeBatch } from './native';
import { parseOtlpLogs } from './otlp';
import { parseRawLines, type RawHeaders } from './raw';

export type IngestFormat = 'native' | 'raw' | 'hec' | 'bulk' | 'doc' | 'otlp';

export interface IngestParams {
  format: IngestFormat;
  ctx: IngestContext;
  /** Raw ingest headers (source, sourcetype, index, host). */
  raw?: RawHeaders;
  /** Seed of generated document ids (bulk and `_doc`). */
  idSeed?: string;
  /** Path index of `/es/{index}/_doc` and `/es/{index}/_bulk`. */
  pathIndex?: string;
}

/** What a route answers besides the count of accepted events. */
export type ParseSummary =
  | { format: 'native'; failed: number; errors: { item: number; reason: string }[] }
  | { format: 'raw' }
  | { format: 'hec'; skipped: number; errors: { line: number; reason: string }[] }
  | { format: 'bulk'; errors: boolean; items: BulkItem[] }
  | { format: 'doc'; id: string }
  | { format: 'otlp' };

/** Runs the parser a record names: the accepted events and the route's summary. Throws ApiError for a bad request. */
export function parseRecord(params: IngestParams, body: string): { events: LogEvent[]; summary: ParseSummary } {
  switch (params.format) {
    case 'native': {
      const { events, failed, errors } = parseNativeBatch(body, params.ctx);
      return { events, summary: { format: 'native', failed, errors } };
    }
    case 'raw':
      return { events: parseRawLines(body, params.raw ?? {}, params.ctx).events, summary: { format: 'raw' } };
    case 'hec': {
      if (body.trim() === '') throw invalidRequest('the body holds no event (send one JSON object per line)');
      const { events, skipped, errors } = parseHecLines(body, params.ctx);
      return { events, summary: { format: 'hec', skipped, errors } };
    }
    case 'bulk': {
      const { events, items, errors } = parseBulk(body, params.ctx, params.idSeed ?? '', params.pathIndex);
      return { events, summary: { format: 'bulk', items, errors } };
    }
    case 'doc': {
      const { event, id } = parseEsDoc(body, params.pathIndex ?? '', params.ctx, params.idSeed ?? '');
      return { events: [event], summary: { format: 'doc', id } };
    }
    case 'otlp':
      return { events: parseOtlpLogs(body, params.ctx).events, summary: { format: 'otlp' } };
  }
}

/** A body as text. ASCII (the common case) is copied as one-byte text without UTF-8 validation. */
export function bodyText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

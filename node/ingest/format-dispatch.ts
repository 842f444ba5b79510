/**
 * One ingest request's parse: its format and inputs (IngestParams), the parser they name, and the
 * route's summary. Parsers are deterministic: the same body and params give the same events.
 */
import { isAscii } from 'buffer';
import type { LogEvent } from '../../storage/core/event';
import { invalidRequest } from '../core/errors';
import { parseBulk, parseEsDoc, type BulkItem } from './bulk';
import type { IngestContext } from './common';
import { parseHecLines, type HecResult } from './hec';
import { parseNativeBatch, type NativeResult } from './native';
import { parseOtlpLogs, type OtlpResult } from './otlp';
import { parseRawLines, type RawHeaders, type RawResult } from './raw';
import type { Refusal, RefusalCounts } from './refusal';

export const INGEST_FORMATS = ['native', 'raw', 'hec', 'bulk', 'doc', 'otlp'] as const;
export type IngestFormat = (typeof INGEST_FORMATS)[number];

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

/** What a route answers besides the count of accepted events: the refused events' reasons in the format's own way. */
export type ParseSummary =
  | { format: 'native'; failed: number; errors: NativeResult['errors'] }
  | { format: 'raw'; failed: number; errors: RawResult['errors'] }
  | { format: 'hec'; failed: number; errors: HecResult['errors'] }
  | { format: 'bulk'; errors: boolean; items: BulkItem[] }
  | { format: 'doc'; id: string; refusal: Refusal | null }
  | { format: 'otlp'; rejected: number; errors: OtlpResult['errors'] };

/** A parse: the accepted events, the route's summary, and the refused events by reason (for metrics). */
export interface ParsedRecord {
  events: LogEvent[];
  summary: ParseSummary;
  refused: RefusalCounts;
}

/** Runs the parser a record names. Throws ApiError for a bad request. */
export function parseRecord(params: IngestParams, body: string): ParsedRecord {
  switch (params.format) {
    case 'native': {
      const { events, failed, errors, refused } = parseNativeBatch(body, params.ctx);
      return { events, summary: { format: 'native', failed, errors }, refused };
    }
    case 'raw': {
      const { events, failed, errors, refused } = parseRawLines(body, params.raw ?? {}, params.ctx);
      return { events, summary: { format: 'raw', failed, errors }, refused };
    }
    case 'hec': {
      if (body.trim() === '') throw invalidRequest('the body holds no event (send one JSON object per line)');
      const { events, failed, errors, refused } = parseHecLines(body, params.ctx);
      return { events, summary: { format: 'hec', failed, errors }, refused };
    }
    case 'bulk': {
      const { events, items, errors, refused } = parseBulk(body, params.ctx, params.idSeed ?? '', params.pathIndex);
      return { events, summary: { format: 'bulk', items, errors }, refused };
    }
    case 'doc': {
      const { event, refusal, id } = parseEsDoc(body, params.pathIndex ?? '', params.ctx, params.idSeed ?? '');
      if (refusal !== null) return { events: [], summary: { format: 'doc', id, refusal }, refused: { [refusal.reason]: 1 } };
      return { events: [event], summary: { format: 'doc', id, refusal }, refused: {} };
    }
    case 'otlp': {
      const { events, rejected, errors, refused } = parseOtlpLogs(body, params.ctx);
      return { events, summary: { format: 'otlp', rejected, errors }, refused };
    }
  }
}

/** A body as text. ASCII (the common case) is copied as one-byte text without UTF-8 validation. */
export function bodyText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

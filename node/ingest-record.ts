/**
 * The write-buffer record of one ingest request: the (decompressed) body plus everything its
 * parser was given. Storing the body costs one copy, where re-encoding the parsed events would
 * cost a serialization per event; replay after a crash runs the same deterministic parser on the
 * same inputs and gets the same events.
 */
import { isAscii } from 'buffer';
import type { LogEvent } from '../storage/event';
import type { RecordDecoder } from '../storage/write-buffer';
import { invalidRequest } from './errors';
import { parseBulk, parseEsDoc, type BulkItem } from './ingest/bulk';
import type { IngestContext } from './ingest/common';
import { parseHecLines } from './ingest/hec';
import { parseNativeBatch } from './ingest/native';
import { parseOtlpLogs } from './ingest/otlp';
import { parseRawLines, type RawHeaders } from './ingest/raw';

/** Record kind in the write buffer (kind 0 is the engine's own JSON events). */
export const INGEST_RECORD_KIND = 1;

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

/** Runs the parser a record names; returns only the accepted events. */
export function eventsOf(params: IngestParams, body: string): LogEvent[] {
  return parseRecord(params, body).events;
}

/** A body as text. ASCII (the common case) is copied as one-byte text without UTF-8 validation. */
export function bodyText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** The write-buffer record value: the kind byte, the params as a JSON line, then the body (one copy). */
export function ingestRecordValue(params: IngestParams, body: Buffer): Buffer {
  const header = `${JSON.stringify(params)}\n`;
  const headerBytes = Buffer.byteLength(header);
  const value = Buffer.allocUnsafeSlow(1 + headerBytes + body.length);
  value[0] = INGEST_RECORD_KIND;
  value.write(header, 1, 'utf8');
  body.copy(value, 1 + headerBytes);
  return value;
}

export const decodeIngestRecord: RecordDecoder = (payload) => {
  const newline = payload.indexOf(0x0a);
  if (newline === -1) throw new Error('ingest record without a header line');
  const params = JSON.parse(payload.subarray(0, newline).toString('utf8')) as IngestParams;
  return eventsOf(params, bodyText(payload.subarray(newline + 1)));
};

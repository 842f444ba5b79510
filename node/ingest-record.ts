/**
 * The write-buffer record of one ingest request: the (decompressed) body plus everything its
 * parser was given. Storing the body costs one copy, where re-encoding the parsed events would
 * cost a serialization per event; replay after a crash runs the same deterministic parser on the
 * same inputs and gets the same events.
 */
import type { LogEvent } from '../storage/event';
import type { RecordDecoder } from '../storage/write-buffer';
import { parseBulk, parseEsDoc } from './ingest/bulk';
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

/** Runs the parser a record names; returns only the accepted events. */
export function eventsOf(params: IngestParams, body: string): LogEvent[] {
  switch (params.format) {
    case 'native':
      return parseNativeBatch(body, params.ctx).events;
    case 'raw':
      return parseRawLines(body, params.raw ?? {}, params.ctx).events;
    case 'hec':
      return parseHecLines(body, params.ctx).events;
    case 'bulk':
      return parseBulk(body, params.ctx, params.idSeed ?? '', params.pathIndex).events;
    case 'doc':
      return [parseEsDoc(body, params.pathIndex ?? '', params.ctx, params.idSeed ?? '').event];
    case 'otlp':
      return parseOtlpLogs(body, params.ctx).events;
  }
}

/** The record's parts (header line, body); the write buffer joins them with a single copy. */
export function encodeIngestRecord(params: IngestParams, body: Buffer): Buffer[] {
  return [Buffer.from(`${JSON.stringify(params)}\n`), body];
}

export const decodeIngestRecord: RecordDecoder = (payload) => {
  const newline = payload.indexOf(0x0a);
  if (newline === -1) throw new Error('ingest record without a header line');
  const params = JSON.parse(payload.subarray(0, newline).toString('utf8')) as IngestParams;
  return eventsOf(params, payload.subarray(newline + 1).toString('utf8'));
};

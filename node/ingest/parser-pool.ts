/**
 * Runs ingest parsers off the main thread. A body is parsed (JSON.parse, mapping, grouping by
 * partition key into columnar chunks) in an ingest worker, which hands back the chunk record
 * (storage/buffer/chunk-record.ts: one SharedArrayBuffer, no copy) and the route's summary. The main
 * thread keeps only what must be ordered there: the write-buffer record and the memtable append.
 * Small bodies are parsed in place: a thread round trip would cost more than the parse.
 */
import os from 'os';
import path from 'path';
import { decodeChunkRecord, encodeChunkRecord } from '../../storage/buffer/chunk-record';
import { chunkEvents, type EventChunk } from '../../storage/buffer/event-chunk';
import { BULK_YOUNG_GENERATION_MB, IDLE_WORKER_STOP_MS, WorkerPool } from '../../storage/threads/worker-pool';
import type { Placement } from '../../storage/core/partition';
import { ApiError, type ErrorCode } from '../core/errors';
import { scanNativeBatch } from './native-scan';
import { bodyText, parseRecord, type IngestParams, type ParseSummary } from './format-dispatch';
import type { RefusalCounts } from './refusal';

export interface ParsedBody {
  chunks: EventChunk[];
  /** The chunk record (storage/buffer/chunk-record.ts): the write-buffer record, and the memory `chunks` view. */
  record: Buffer;
  /** Accepted events. */
  events: number;
  summary: ParseSummary;
  /** Refused events by reason. */
  refused: RefusalCounts;
}

export interface ParseRequest {
  id: number;
  params: IngestParams;
  body: Uint8Array;
  placement: Placement;
}

export type ParseResponse = { id: number; ok: true; parsed: Omit<ParsedBody, 'chunks'> } | { id: number; ok: false; error: ParseFailure };

/** A failed parse: an ApiError's parts, or (apiError false) an unexpected error's stack. */
export interface ParseFailure {
  apiError: boolean;
  status: number;
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
}

/** Bodies below this size are parsed on the calling thread. */
export const INLINE_PARSE_BYTES = 64 * 1024;

/**
 * Parse workers by default: one per core, at most four. Parsing is the busiest ingest stage and the
 * main thread mostly waits on RocksDB, so a second parse worker lets two requests parse at once
 * (figures: docs/benchmarks.md, "Figures behind the constants").
 */
export function defaultIngestWorkers(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/**
 * The parse itself (in a worker or in place): the chunk record and the route's summary. Throws
 * ApiError for a bad request. Native bodies try the byte scanner first (native-scan.ts), which
 * hands over to the general path for anything it does not map exactly.
 */
export function parseBody(params: IngestParams, body: Buffer, placement: Placement): Omit<ParsedBody, 'chunks'> {
  if (params.format === 'native') {
    const chunks = scanNativeBatch(body, params.ctx, placement);
    if (chunks !== null) {
      const events = chunks.reduce((sum, chunk) => sum + chunk.count, 0);
      return { record: encodeChunkRecord(chunks, placement), events, summary: { format: 'native', failed: 0, errors: [] }, refused: {} };
    }
  }
  const { events, summary, refused } = parseRecord(params, bodyText(body));
  return { record: encodeChunkRecord(chunkEvents(events, placement), placement), events: events.length, summary, refused };
}

/** A parse result with its chunks as views into the record. */
function withChunks(parsed: Omit<ParsedBody, 'chunks'>): ParsedBody {
  return { ...parsed, chunks: decodeChunkRecord(parsed.record).chunks };
}

export class IngestParser {
  private readonly workers: WorkerPool<ParseResponse>;

  /** `size` 0 parses everything in place. */
  constructor(private readonly size: number) {
    this.workers = new WorkerPool<ParseResponse>(path.join(__dirname, 'parser-worker.js'), size, {
      unref: true,
      resourceLimits: { maxYoungGenerationSizeMb: BULK_YOUNG_GENERATION_MB },
      idleStopMs: IDLE_WORKER_STOP_MS,
    });
  }

  /** The running workers' heaps, as of their last responses. */
  get heapBytes(): number {
    return this.workers.heapBytes;
  }

  /** Starts the workers now, so that the first large request does not pay for thread startup. */
  warm(): void {
    this.workers.warm();
  }

  /** Parses a body; a large one is handed to a worker and must not be used by the caller afterwards. */
  async parse(params: IngestParams, body: Buffer, placement: Placement): Promise<ParsedBody> {
    if (this.size === 0 || this.workers.closed || body.length < INLINE_PARSE_BYTES) return withChunks(parseBody(params, body, placement));
    // A body that owns its memory moves to the worker without a copy.
    const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
    const request: Omit<ParseRequest, 'id'> = { params, body, placement };
    const response = await this.workers.request(request, owned ? [body.buffer as ArrayBuffer] : []);
    if (!response.ok) {
      const { apiError, status, code, message, details } = response.error;
      throw apiError ? new ApiError(code, message, details, status) : new Error(message);
    }
    const { record } = response.parsed;
    return withChunks({ ...response.parsed, record: Buffer.from(record.buffer, record.byteOffset, record.byteLength) });
  }

  async close(): Promise<void> {
    await this.workers.close();
  }
}

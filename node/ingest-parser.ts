/**
 * Runs ingest parsers off the main thread. A body is parsed (JSON.parse, mapping, columnizing)
 * in an ingest worker, which hands back event chunks grouped by partition key (typed arrays and
 * UTF-8 buffers, transferred without a copy) and the route's summary. The main thread keeps only
 * what must be ordered there: the write-buffer record and the memtable append. Small bodies are
 * parsed in place: a thread round trip would cost more than the parse.
 */
import os from 'os';
import path from 'path';
import { Worker } from 'worker_threads';
import { decodeChunkRecord, encodeChunkRecord } from '../storage/chunk-record';
import { chunkEvents, type EventChunk } from '../storage/event-chunk';
import type { Placement } from '../storage/partition';
import { ApiError, type ErrorCode } from './errors';
import { bodyText, parseRecord, type IngestParams, type ParseSummary } from './ingest-record';

export interface ParsedBody {
  chunks: EventChunk[];
  /** The chunk record (storage/chunk-record.ts): the write-buffer record, and the memory `chunks` view. */
  record: Buffer;
  /** Accepted events. */
  events: number;
  summary: ParseSummary;
}

export interface ParseRequest {
  id: number;
  params: IngestParams;
  body: Uint8Array;
  placement: Placement;
}

export type ParseResponse =
  | { id: number; ok: true; parsed: Omit<ParsedBody, 'chunks'> }
  | { id: number; ok: false; error: ParseFailure };

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

/** Parse workers by default: one per core beyond the main thread's, at least one, at most four. */
export function defaultIngestWorkers(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

/** The parse itself (in a worker or in place): the chunk record and the route's summary. Throws ApiError for a bad request. */
export function parseBody(params: IngestParams, body: Buffer, placement: Placement): Omit<ParsedBody, 'chunks'> {
  const { events, summary } = parseRecord(params, bodyText(body));
  return { record: encodeChunkRecord(chunkEvents(events, placement), placement), events: events.length, summary };
}

/** A parse result with its chunks as views into the record. */
function withChunks(parsed: Omit<ParsedBody, 'chunks'>): ParsedBody {
  return { ...parsed, chunks: decodeChunkRecord(parsed.record).chunks };
}

interface Pending {
  resolve: (parsed: ParsedBody) => void;
  reject: (error: Error) => void;
  worker: PoolWorker;
}

interface PoolWorker {
  worker: Worker;
  busy: number;
}

export class IngestParser {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  /** `size` 0 parses everything in place. */
  constructor(private readonly size: number) {}

  /** Parses a body; a large one is handed to a worker and must not be used by the caller afterwards. */
  parse(params: IngestParams, body: Buffer, placement: Placement): Promise<ParsedBody> {
    if (this.size === 0 || this.closed || body.length < INLINE_PARSE_BYTES) {
      try {
        return Promise.resolve(withChunks(parseBody(params, body, placement)));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    const target = this.pickWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: target });
      target.busy++;
      // A body that owns its memory moves to the worker without a copy; it comes back inside the record.
      const request: ParseRequest = { id, params, body, placement };
      const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
      target.worker.postMessage(request, owned ? [body.buffer as ArrayBuffer] : []);
    });
  }

  /** Starts the workers now, so that the first large request does not pay for thread startup. */
  warm(): void {
    while (!this.closed && this.workers.length < this.size) this.startWorker();
  }

  private startWorker(): PoolWorker {
    const entry: PoolWorker = { worker: new Worker(path.join(__dirname, 'ingest-worker.js')), busy: 0 };
    entry.worker.on('message', (response: ParseResponse) => this.settle(response));
    entry.worker.on('error', (error) => this.failWorker(entry, error));
    entry.worker.unref();
    this.workers.push(entry);
    return entry;
  }

  private pickWorker(): PoolWorker {
    const idle = this.workers.find((entry) => entry.busy === 0);
    if (idle !== undefined) return idle;
    if (this.workers.length < this.size) return this.startWorker();
    return this.workers.reduce((best, current) => (current.busy < best.busy ? current : best));
  }

  private settle(response: ParseResponse): void {
    const pending = this.pending.get(response.id);
    if (pending === undefined) return;
    this.pending.delete(response.id);
    pending.worker.busy--;
    if (response.ok) {
      // The record arrives alone (transferred); its chunks are views into it, made on this side.
      const { record } = response.parsed;
      pending.resolve(withChunks({ ...response.parsed, record: Buffer.from(record.buffer, record.byteOffset, record.byteLength) }));
    }
    else {
      const { apiError, status, code, message, details } = response.error;
      pending.reject(apiError ? new ApiError(status, code, message, details) : new Error(message));
    }
  }

  private failWorker(entry: PoolWorker, error: Error): void {
    for (const [id, pending] of this.pending) {
      if (pending.worker === entry) {
        this.pending.delete(id);
        pending.reject(error);
      }
    }
    const position = this.workers.indexOf(entry);
    if (position !== -1) this.workers.splice(position, 1);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((entry) => entry.worker.terminate()));
    this.workers.length = 0;
  }
}

/**
 * Worker thread for the CPU-heavy half of storage: encoding segments (flush) and merging them
 * (compaction). The main thread keeps HTTP, parsing and RocksDB I/O; buffers come back as
 * transferred ArrayBuffers, so nothing large is copied twice.
 */
import { parentPort, workerData } from 'worker_threads';
import { threadHeapBytes } from './thread-memory';
import { rowSetOfPieces } from '../buffer/chunk-read';
import type { ColumnBatch } from '../core/column';
import type { ChunkPiece } from '../buffer/event-chunk';
import { decodeColumns } from '../segment/row-block';
import type { SegmentHeader, SourceStats } from '../segment/header';
import { rowSetFromBatches, type RowSet } from '../segment/row-set';
import { encodeSegment, type EncodeSegmentOptions, type EncodedSegment } from '../segment/segment-encoder';
import { canRewrite, rewriteSegments } from '../segment/segment-rewrite';
import { sourceStatsOf } from '../segment/source-stats';
import { lowerThreadPriority } from './thread-priority';

/** An encoded segment plus its per-source summary (both computed off the main thread). */
export interface CodecResult extends EncodedSegment {
  sources: SourceStats[];
  /** A compaction that kept its inputs' column blocks (segment-rewrite.ts) rather than decoding them. */
  keptBlocks?: boolean;
}

export interface MergeInput {
  header: SegmentHeader;
  /** `blocks[b][c]`: row block b, column `header.columns[c]` (null when missing). */
  blocks: (Uint8Array | null)[][];
  /** Row block b's stored filter value (null when none): given, the inputs may keep their columns (segment-rewrite.ts). */
  blooms?: (Uint8Array | null)[];
}

export type CodecRequest =
  | { id: number; type: 'encode'; pieces: ChunkPiece[]; options: EncodeSegmentOptions }
  | { id: number; type: 'merge'; inputs: MergeInput[]; options: EncodeSegmentOptions };

/** What a codec worker is started with. */
export interface CodecWorkerData {
  /** Compaction: run at background priority. */
  background: boolean;
}

export type CodecResponse = { id: number; ok: true; result: CodecResult } | { id: number; ok: false; error: string };

function encodeWithSources(rows: RowSet, options: EncodeSegmentOptions): CodecResult {
  return { ...encodeSegment(rows, options), sources: sourceStatsOf(rows) };
}

/**
 * Compacts the inputs into one segment: keeping their columns' blocks when their rows follow one
 * another in time and their filters came along (segment-rewrite.ts: only `_raw` is written anew),
 * else by decoding every stored column and encoding the rows again.
 */
export function mergeSegments(inputs: MergeInput[], options: EncodeSegmentOptions): CodecResult {
  const stored = inputs.map(({ header, blocks, blooms }) => ({ header, blocks, blooms: blooms ?? [] }));
  if (inputs.every((input) => input.blooms !== undefined) && canRewrite(stored, options))
    return { ...rewriteSegments(stored, options), keptBlocks: true };
  const batches: ColumnBatch[] = [];
  for (const input of inputs) {
    input.blocks.forEach((columns, block) => {
      const rows = input.header.blocks[block].rows;
      const names = input.header.columns.map((stats) => stats.name);
      batches.push({ rowCount: rows, columns: decodeColumns(rows, names, columns) });
    });
  }
  return encodeWithSources(rowSetFromBatches(batches), options);
}

export function runCodecRequest(request: CodecRequest): CodecResult {
  return request.type === 'encode'
    ? encodeWithSources(rowSetOfPieces(request.pieces), request.options)
    : mergeSegments(request.inputs, request.options);
}

if (parentPort !== null) {
  const port = parentPort;
  if ((workerData as CodecWorkerData | null)?.background === true) lowerThreadPriority();
  port.on('message', (request: CodecRequest) => {
    let response: CodecResponse;
    const transfer: ArrayBuffer[] = [];
    try {
      const result = runCodecRequest(request);
      response = { id: request.id, ok: true, result };
      for (const column of result.blockData) for (const block of column) collectTransfer(block, transfer);
      for (const bloom of result.blooms) collectTransfer(bloom, transfer);
    } catch (error) {
      response = { id: request.id, ok: false, error: (error as Error).stack ?? String(error) };
    }
    port.postMessage({ ...response, heap: threadHeapBytes() }, transfer);
  });
}

/** Transfers a buffer's memory when it owns all of it (pooled small Buffers share an ArrayBuffer and are copied). */
function collectTransfer(buffer: Uint8Array, transfer: ArrayBuffer[]): void {
  const memory = buffer.buffer;
  if (memory instanceof ArrayBuffer && buffer.byteOffset === 0 && buffer.byteLength === memory.byteLength && !transfer.includes(memory)) {
    transfer.push(memory);
  }
}

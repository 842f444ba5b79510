/**
 * One owner's share of a write, cut into parts whose chunk records stay under a size, so every
 * message between nodes is bounded whatever the request's size or bucket span. Chunks are packed
 * whole while they fit; a chunk larger than a part is cut by rows.
 */
import { chunkRecordBytes, sliceChunk } from '../../storage/buffer/chunk-slice';
import type { EventChunk } from '../../storage/buffer/event-chunk';

/**
 * The most bytes a part's record is meant to hold: well under gRPC's 4 MiB default message limit
 * (the callee's limit is set above it, GRPC_MAX_MESSAGE_BYTES), small enough that one part is a
 * short RocksDB write, large enough that a 100 MB request is some fifty calls an owner.
 */
export const SHARE_PART_BYTES = 2 * 1024 * 1024;

export interface SharePart {
  chunks: EventChunk[];
  events: number;
}

/** The parts of a share, in order; one part when the share fits. */
export function shareParts(chunks: readonly EventChunk[], maxBytes = SHARE_PART_BYTES): SharePart[] {
  const parts: SharePart[] = [];
  let current: SharePart = { chunks: [], events: 0 };
  let currentBytes = 0;
  const close = (): void => {
    if (current.chunks.length > 0) parts.push(current);
    current = { chunks: [], events: 0 };
    currentBytes = 0;
  };
  const add = (chunk: EventChunk, bytes: number): void => {
    if (currentBytes + bytes > maxBytes) close();
    current.chunks.push(chunk);
    current.events += chunk.count;
    currentBytes += bytes;
  };
  for (const chunk of chunks) {
    if (chunk.count === 0) continue;
    const bytes = chunkRecordBytes(chunk);
    if (bytes <= maxBytes || chunk.count === 1) {
      add(chunk, bytes);
      continue;
    }
    // Rows a slice may hold on average; a slice that still weighs too much (rows of unequal size)
    // is halved until it fits or is one row.
    const rows = Math.max(1, Math.floor((chunk.count * maxBytes) / bytes));
    for (let start = 0; start < chunk.count;) {
      let end = Math.min(chunk.count, start + rows);
      let slice = sliceChunk(chunk, start, end);
      let sliceBytes = chunkRecordBytes(slice);
      while (sliceBytes > maxBytes && end - start > 1) {
        end = start + Math.ceil((end - start) / 2);
        slice = sliceChunk(chunk, start, end);
        sliceBytes = chunkRecordBytes(slice);
      }
      add(slice, sliceBytes);
      start = end;
    }
  }
  close();
  return parts;
}

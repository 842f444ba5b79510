/**
 * Decompressed payloads of stored column blocks, kept per thread up to a byte budget. A query
 * worker reads the same few columns of the same blocks query after query (a dashboard's panels,
 * an operator refining a search), and unpacking zstd costs more than anything else done with a
 * small column block. A block's reader names its buffer (segment id, row block, column: immutable
 * for the segment's life, and ids are never reused), and block-envelope.ts serves a named block
 * from here. Off (budget 0) until a thread turns it on; query workers do.
 *
 * Payloads served from here are shared between readers: a reader must not write into one.
 */
import { ByteLru } from '../core/byte-lru';
import { RAW_COLUMN } from '../core/event';

/** The name of a stored column block: segment ids are never reused and stored blocks never change. */
export function storedBlockName(segment: string, block: number, column: string): string {
  return `${segment}/${block}/${column}`;
}

/**
 * Columns whose blocks the query workers cache (and hold, query/exec/held-blocks.ts). Not `_raw`:
 * its blocks are the largest by far, and a needle search reads them once through its filters.
 */
export function cachesColumn(column: string): boolean {
  return column !== RAW_COLUMN;
}

let cache: ByteLru<Buffer> | null = null;
let names = new WeakMap<Uint8Array, string>();
let hits = 0;
let misses = 0;

/** Sets this thread's budget (0 turns the cache off) and empties the cache. */
export function setPayloadCacheBytes(bytes: number): void {
  cache = bytes > 0 ? new ByteLru<Buffer>(bytes) : null;
  names = new WeakMap();
}

/** Names a stored block's buffer, so that its payload is cached (nothing while the cache is off). */
export function nameBlock(block: Uint8Array, name: string): void {
  if (cache !== null) names.set(block, name);
}

/**
 * The payload of a named block from the cache, or made by `decompress` into a fresh buffer of
 * `size` bytes and kept; undefined for a block nobody named (the caller decompresses as usual).
 */
export function cachedPayload(block: Uint8Array, size: number, decompress: (into: Buffer) => void): Buffer | undefined {
  if (cache === null) return undefined;
  const name = names.get(block);
  if (name === undefined) return undefined;
  const known = cache.get(name);
  if (known !== undefined && known.length === size) {
    hits++;
    return known;
  }
  misses++;
  const payload = Buffer.allocUnsafeSlow(size);
  decompress(payload);
  cache.set(name, payload);
  return payload;
}

/** Payloads served from this thread's cache so far (per block on the scan path: no object made). */
export function payloadCacheHits(): number {
  return hits;
}

/** This thread's cache: payloads served from it and decompressed into it since the thread started, and what it holds now. */
export interface PayloadCacheCounters {
  hits: number;
  misses: number;
  bytes: number;
  entries: number;
}

export function payloadCacheCounters(): PayloadCacheCounters {
  return { hits, misses, bytes: cache?.bytes ?? 0, entries: cache?.size ?? 0 };
}

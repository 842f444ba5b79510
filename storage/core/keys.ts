/**
 * Key layout in the single RocksDB keyspace. One letter and a colon per kind, so each kind is a
 * contiguous range:
 *
 *   w:<seq u64 BE>                         write-buffer record (one acknowledged ingest batch)
 *   q:<set aside ms u64 BE><seq u64 BE>    write-buffer record that failed its checks at replay (quarantine)
 *   h:<segment id>                         segment header (JSON)
 *   b:<segment id>/<block u16 BE><col u16 BE>  one column of one row block (zstd)
 *   f:<segment id>/<block u16 BE>          one row block's bloom filter
 *   c:<name>                               catalog snapshot (fields, sources)
 *   m:<finished ms u64 BE><id>             compaction manifest (JSON)
 *   x:<segment id>                         retired segment whose blocks await deletion
 *   n:<area>/<key>                         a record of the node itself (node-records.ts)
 */

export const WAL_PREFIX = Buffer.from('w:');
export const QUARANTINE_PREFIX = Buffer.from('q:');
export const HEADER_PREFIX = Buffer.from('h:');
export const MANIFEST_PREFIX = Buffer.from('m:');
export const CATALOG_PREFIX = Buffer.from('c:');
export const RETIRED_PREFIX = Buffer.from('x:');

export function retiredKey(segmentId: string): Buffer {
  return Buffer.from(`x:${segmentId}`);
}

export function walKey(seq: number): Buffer {
  const key = Buffer.alloc(2 + 8);
  WAL_PREFIX.copy(key, 0);
  key.writeBigUInt64BE(BigInt(seq), 2);
  return key;
}

export function walSeqOf(key: Buffer): number {
  return Number(key.readBigUInt64BE(2));
}

/** Where a write-buffer record that does not validate is set aside: by when, then by its old seq. */
export function quarantineKey(setAsideMs: number, seq: number): Buffer {
  const key = Buffer.alloc(2 + 16);
  QUARANTINE_PREFIX.copy(key, 0);
  key.writeBigUInt64BE(BigInt(setAsideMs), 2);
  key.writeBigUInt64BE(BigInt(seq), 10);
  return key;
}

/** A key as its prefix and numbers read (`q:1764200000000/17`) for log lines. */
export function describeQuarantineKey(key: Buffer): string {
  return `q:${key.readBigUInt64BE(2)}/${key.readBigUInt64BE(10)}`;
}

export function headerKey(segmentId: string): Buffer {
  return Buffer.from(`h:${segmentId}`);
}

export function blockKey(segmentId: string, block: number, column: number): Buffer {
  const id = Buffer.from(`b:${segmentId}/`);
  const key = Buffer.alloc(id.length + 4);
  id.copy(key, 0);
  key.writeUInt16BE(block, id.length);
  key.writeUInt16BE(column, id.length + 2);
  return key;
}

/** The range of all block keys of a segment, for deletion. */
export function blockRange(segmentId: string): { start: Buffer; end: Buffer } {
  return { start: Buffer.from(`b:${segmentId}/`), end: Buffer.from(`b:${segmentId}0`) };
}

export function bloomKey(segmentId: string, block: number): Buffer {
  const id = Buffer.from(`f:${segmentId}/`);
  const key = Buffer.alloc(id.length + 2);
  id.copy(key, 0);
  key.writeUInt16BE(block, id.length);
  return key;
}

/** The range of all bloom keys of a segment, for deletion. */
export function bloomRange(segmentId: string): { start: Buffer; end: Buffer } {
  return { start: Buffer.from(`f:${segmentId}/`), end: Buffer.from(`f:${segmentId}0`) };
}

export function catalogKey(name: string): Buffer {
  return Buffer.from(`c:${name}`);
}

export function manifestKey(finishedMs: number, id: string): Buffer {
  const idBytes = Buffer.from(id);
  const key = Buffer.alloc(2 + 8 + idBytes.length);
  MANIFEST_PREFIX.copy(key, 0);
  key.writeBigUInt64BE(BigInt(finishedMs), 2);
  idBytes.copy(key, 10);
  return key;
}

/** Segment ids sort by creation: a zero-padded base-36 counter. */
export function segmentIdFor(counter: number): string {
  return counter.toString(36).padStart(10, '0');
}

export function segmentCounterOf(id: string): number {
  return parseInt(id, 36);
}

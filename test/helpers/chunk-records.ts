/**
 * Chunk records as a faulty peer or a flipped bit would make them: a record given another header
 * (its sections kept as they are), and a small record whose header claims far more rows than it
 * holds. Both write the JSON header of kind 2 (chunk-record-json.ts), whose fields a test can name.
 */
import { encodeJsonChunkRecord } from '../../storage/buffer/chunk-record-json';
import { chunkEvents } from '../../storage/buffer/event-chunk';
import type { Placement } from '../../storage/core/partition';

const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/** `record` with `header` (any JSON) in place of its own; the sections keep their offsets. */
export function withHeader(record: Buffer, header: unknown): Buffer {
  const sections = record.subarray(Math.min(record.length, align8(5 + record.readUInt32LE(1))));
  const text = Buffer.from(JSON.stringify(header));
  const start = align8(5 + text.length);
  const out = Buffer.from(new SharedArrayBuffer(start + sections.length));
  out[0] = record[0];
  out.writeUInt32LE(text.length, 1);
  text.copy(out, 5);
  sections.copy(out, start);
  return out;
}

/** A record of one event now (in `index`) whose chunk header claims `rows` rows. */
export function overClaimingRecord(
  rows: number,
  placement: Placement = { bucketSpanMicros: 3_600_000_000, partitions: 16 },
  index = 'main',
): Buffer {
  const event = { time: Date.now() * 1000, raw: 'one event', index, fields: { host: 'h1', source: 'claims' } };
  const record = encodeJsonChunkRecord(chunkEvents([event], placement), placement);
  const header = JSON.parse(record.toString('utf8', 5, 5 + record.readUInt32LE(1))) as { chunks: { count: number }[] };
  header.chunks[0].count = rows;
  return withHeader(record, header);
}

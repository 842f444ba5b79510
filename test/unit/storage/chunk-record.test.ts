/**
 * Chunk records from anywhere (a peer, a disk) are checked against their bytes: a valid record
 * round-trips, and a mutated or truncated one either is refused with a ChunkRecordError or
 * decodes into chunks that a query and a flush read whole.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { chunkBatch, chunkEventsOf } from '../../../storage/buffer/chunk-read';
import { ChunkRecordError } from '../../../storage/buffer/chunk-check';
import { CHUNK_RECORD_KIND, decodeChunkRecord, encodeChunkRecord, encodeChunkRecordViews } from '../../../storage/buffer/chunk-record';
import { encodeJsonChunkRecord, JSON_CHUNK_RECORD_KIND } from '../../../storage/buffer/chunk-record-json';
import { chunkEvents, unpackStrings, type EventChunk } from '../../../storage/buffer/event-chunk';
import { Generation } from '../../../storage/buffer/write-buffer';
import type { LogEvent } from '../../../storage/core/event';
import { buildSegments } from '../../../storage/lifecycle/segment-builder';
import type { Placement } from '../../../storage/core/partition';
import { decodeSegmentBatches } from '../../../storage/segment/segment-decoder';
import { CodecPool } from '../../../storage/threads/codec-pool';
import { overClaimingRecord, withHeader } from '../../helpers/chunk-records';

const HOUR = 3_600_000_000;

const fieldValue = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('web-1', 'web-2', 'é', '\ud800', ''),
  fc.integer({ min: -3, max: 3 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
);

const eventArb = fc.record({
  time: fc.integer({ min: 0, max: 3 * HOUR }),
  raw: fc.string({ unit: 'binary', maxLength: 30 }),
  index: fc.constantFrom('main', 'web'),
  fields: fc.dictionary(fc.constantFrom('host', 'source', 'status', 'msg', 'ok', 'n'), fieldValue, { maxKeys: 5 }),
});

/** Records of the kind written now and of the JSON kind written before, which are still read. */
const recordArb = fc
  .record({ events: fc.array(eventArb, { minLength: 1, maxLength: 30 }), partitions: fc.constantFrom(1, 3), json: fc.boolean() })
  .map(({ events, partitions, json }) => {
    const placement: Placement = { bucketSpanMicros: HOUR, partitions };
    const encode = json ? encodeJsonChunkRecord : encodeChunkRecord;
    return { events, placement, record: encode(chunkEvents(events, placement), placement) };
  });

const pool = new CodecPool(0);

/** Everything a node does with buffered chunks: query them, turn them back into events, flush them into segments and read those. */
async function readWhole(chunks: readonly EventChunk[]): Promise<number> {
  let rows = 0;
  const generation = new Generation(1);
  generation.add(1, chunks);
  for (const chunk of chunks) {
    const batch = chunkBatch(chunk, { fromMicros: -Infinity, toMicros: Infinity, columns: null });
    assert.equal(batch.rowCount, chunk.count);
    assert.equal(chunkEventsOf(chunk).length, chunk.count);
  }
  for (const table of generation.tables.values()) {
    let id = 0;
    const segments = await buildSegments(pool, table.chunks, table.key, {
      compressionLevel: 1,
      segmentMaxEvents: 7,
      level: 0,
      nextId: () => String(++id),
    });
    for (const segment of segments) {
      for (const batch of decodeSegmentBatches(segment.header, segment.blockData)) rows += batch.rowCount;
    }
  }
  assert.equal(rows, generation.events);
  return rows;
}

/** Every number in a JSON value, by its path. */
function numberPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'number') return [path];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => numberPaths(child, [...path, Array.isArray(value) ? Number(key) : key]));
}

function headerOf(record: Buffer): Record<string, unknown> {
  return JSON.parse(record.toString('utf8', 5, 5 + record.readUInt32LE(1))) as Record<string, unknown>;
}

/** Decodes `bytes`: refused with the decoder's own error, or readable whole. */
async function refusedOrReadable(bytes: Buffer): Promise<void> {
  let chunks: EventChunk[];
  try {
    chunks = decodeChunkRecord(bytes).chunks;
  } catch (error) {
    assert.ok(error instanceof ChunkRecordError, `not the decoder's error: ${(error as Error).stack}`);
    return;
  }
  await readWhole(chunks);
}

describe('chunk records from outside', () => {
  it('round-trips every valid record, and its chunks flush whole (property)', async () => {
    await fc.assert(
      fc.asyncProperty(recordArb, async ({ events, placement, record }) => {
        const decoded = decodeChunkRecord(record);
        assert.deepEqual(decoded.placement, placement);
        const raws = decoded.chunks.flatMap((chunk) => unpackStrings(chunk.raws)).sort();
        assert.deepEqual(raws, events.map((event) => event.raw).sort());
        assert.equal(await readWhole(decoded.chunks), events.length);
      }),
      { numRuns: 100 },
    );
  });

  it('a record encoded with its views gives the chunks its decode gives, in its own memory (property)', () => {
    fc.assert(
      fc.property(recordArb, ({ placement, record }) => {
        const chunks = decodeChunkRecord(record).chunks;
        const own = encodeChunkRecordViews(chunks, placement);
        const decoded = decodeChunkRecord(own.record).chunks;
        assert.deepEqual(own.chunks, decoded);
        assert.deepEqual(own.chunks.flatMap(chunkEventsOf), chunks.flatMap(chunkEventsOf));
        for (const chunk of own.chunks) {
          assert.equal(chunk.times.buffer, own.record.buffer);
          for (const field of chunk.fields)
            for (const array of [field.rows, field.numbers, field.codes, field.dict?.bytes])
              if (array) assert.equal(array.buffer, own.record.buffer);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a record whose header claims more rows than it holds', () => {
    const record = overClaimingRecord(2_000_000);
    assert.ok(record.length < 1000, String(record.length));
    assert.throws(
      () => decodeChunkRecord(record),
      (error: Error) => error instanceof ChunkRecordError && /claims 2000000 rows but holds 1 times/.test(error.message),
    );
  });

  it('refuses what does not add up, by name: a section past the end, an unaligned one, a code past the dictionary, a time outside the bucket', () => {
    const events: LogEvent[] = [
      { time: 10, raw: 'a', index: 'main', fields: { host: 'h1', n: 1 } },
      { time: 20, raw: 'b', index: 'main', fields: { host: 'h2' } },
    ];
    const placement: Placement = { bucketSpanMicros: HOUR, partitions: 1 };
    const record = encodeJsonChunkRecord(chunkEvents(events, placement), placement);
    type Header = {
      chunks: {
        times: number[];
        count: number;
        key: { index: string; bucket: number };
        fields: { name: string; codes: number[] | null }[];
      }[];
    };
    const refusal = (edit: (header: Header) => void, pattern: RegExp): void => {
      const header = headerOf(record) as unknown as Header;
      edit(header);
      assert.throws(
        () => decodeChunkRecord(withHeader(record, header)),
        (error: Error) => error instanceof ChunkRecordError && pattern.test(error.message),
        pattern.source,
      );
    };
    refusal((header) => (header.chunks[0].times[0] += 1 << 20), /chunk 0 times of 2 x 8 bytes at \d+ passes the end/);
    refusal((header) => (header.chunks[0].times[0] += 4), /chunk 0 times starts at \d+, not a multiple of 8/);
    refusal((header) => (header.chunks[0].key.index = '../../etc'), /index '\.\.\/\.\.\/etc', which is not an index name/);
    refusal((header) => (header.chunks[0].key.bucket = HOUR), /row 0 has time 10, not in its bucket/);
    // A key may start inside its bucket (a split), but never after one of its times.
    refusal((header) => (header.chunks[0].key.bucket = 11), /row 0 has time 10, not in its bucket \[11, 3600000000\)/);
    refusal((header) => (header.chunks[0].key.bucket = -5), /bucket -5 is before 1970/);
    refusal((header) => (header.chunks[0].fields[0].name = '_time'), /a field named '_time'/);
    refusal((header) => (header.chunks[0].fields[1].name = header.chunks[0].fields[0].name), /field 'host' twice/);
    assert.throws(() => decodeChunkRecord(record.subarray(0, 4)), ChunkRecordError);
    assert.throws(() => decodeChunkRecord(Buffer.from('not a record')), ChunkRecordError);
    const notJson = Buffer.from(record);
    notJson[5] = 0x7b + 1;
    assert.throws(() => decodeChunkRecord(notJson), /the header is not JSON/);
  });

  it('refuses a binary header that does not add up, by name: cut short, longer than its chunks, a count past its rows, a string it does not hold', () => {
    const events: LogEvent[] = [
      { time: 10, raw: 'a', index: 'main', fields: { host: 'h1', n: 1 } },
      { time: 20, raw: 'b', index: 'main', fields: { host: 'h2' } },
    ];
    const placement: Placement = { bucketSpanMicros: HOUR, partitions: 1 };
    const record = encodeChunkRecord(chunkEvents(events, placement), placement);
    assert.equal(record[0], CHUNK_RECORD_KIND);
    const headerLength = record.readUInt32LE(1);
    // The first chunk's fields: after the placement, the string table and the chunk count.
    let at = 5 + 16;
    const strings = record.readUInt32LE(at);
    at += 4;
    for (let i = 0; i < strings; i++) at += 4 + record.readUInt32LE(at);
    assert.equal(record.readUInt32LE(at), 1, 'one chunk');
    const index = at + 4;
    const count = index + 4 + 8 + 4;
    const refusal = (edit: (bytes: Buffer) => Buffer, pattern: RegExp): void => {
      const bytes = edit(Buffer.from(record));
      assert.throws(
        () => decodeChunkRecord(bytes),
        (error: Error) => error instanceof ChunkRecordError && pattern.test(error.message),
        pattern.source,
      );
    };
    refusal((bytes) => (bytes.writeUInt32LE(headerLength - 3, 1), bytes), /the header ends inside chunk 0/);
    refusal((bytes) => (bytes.writeUInt32LE(count - 5, 1), bytes), /the header ends inside/);
    // Eight more header bytes, the sections moved by eight as well.
    const padded = (bytes: Buffer): Buffer => {
      const out = Buffer.alloc(bytes.length + 8);
      bytes.copy(out, 0, 0, 5 + headerLength);
      out.writeUInt32LE(headerLength + 8, 1);
      bytes.copy(out, Math.ceil((5 + headerLength) / 8) * 8 + 8, Math.ceil((5 + headerLength) / 8) * 8);
      return out;
    };
    refusal(padded, /holds 8 bytes past its last chunk/);
    refusal((bytes) => (bytes.writeUInt32LE(2_000_000, count), bytes), /chunk 0 claims 2000000 rows but holds 2 times/);
    refusal((bytes) => (bytes.writeUInt32LE(strings, index), bytes), new RegExp(`chunk 0's index names string ${strings} of ${strings}`));
    refusal((bytes) => (bytes.writeUInt32LE(2 ** 31, 5 + 16), bytes), /claims 2147483648 strings/);
    refusal((bytes) => (bytes.writeDoubleLE(0, 5), bytes), /no positive bucket span/);
  });

  it('reads records of the JSON kind written before (write-buffer records and hints kept across an upgrade)', () => {
    const events: LogEvent[] = [
      { time: 10, raw: 'a', index: 'main', fields: { host: 'h1', n: 1, mixed: -0 } },
      { time: 20, raw: 'é', index: 'main', fields: { host: 'h2', mixed: 'x', ok: true } },
    ];
    const placement: Placement = { bucketSpanMicros: HOUR, partitions: 3 };
    const chunks = chunkEvents(events, placement);
    const old = encodeJsonChunkRecord(chunks, placement);
    assert.equal(old[0], JSON_CHUNK_RECORD_KIND);
    const now = encodeChunkRecord(chunks, placement);
    const asEvents = (record: Buffer): unknown => decodeChunkRecord(record).chunks.flatMap(chunkEventsOf);
    assert.deepEqual(asEvents(old), asEvents(now));
    assert.deepEqual(decodeChunkRecord(old).placement, placement);
  });

  it('a record with a flipped byte, a number changed in its header or cut short is refused or read whole (property)', async () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('number' as const),
        at: fc.nat(),
        value: fc.oneof(
          fc.constantFrom(0, 1, -1, 2, 7, 8, 2 ** 31, 2 ** 32 + 8, 2_000_000, 1.5, 1e300),
          fc.integer({ min: -64, max: 4096 }),
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(recordArb, fc.array(mutation, { minLength: 1, maxLength: 3 }), async ({ record }, mutations) => {
        let bytes: Buffer = Buffer.from(record);
        for (const change of mutations) {
          if (change.kind === 'byte') {
            if (bytes.length > 0) bytes[change.at % bytes.length] = change.value;
          } else if (change.kind === 'truncate') {
            bytes = bytes.subarray(0, change.at % (bytes.length + 1));
          } else if (bytes.length > 9 && bytes[0] === CHUNK_RECORD_KIND) {
            // The binary header: a 32-bit word of it (a count, an offset, a string id, half a number) replaced.
            const headerEnd = Math.min(bytes.length, 5 + bytes.readUInt32LE(1));
            if (headerEnd - 5 < 4) continue;
            bytes = Buffer.from(bytes);
            bytes.writeUInt32LE(change.value >>> 0, 5 + (change.at % (headerEnd - 8)));
          } else {
            let header: Record<string, unknown>;
            try {
              header = headerOf(bytes);
            } catch {
              continue;
            }
            const paths = numberPaths(header);
            if (paths.length === 0) continue;
            const path = paths[change.at % paths.length];
            let parent = header as Record<string | number, unknown>;
            for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
            parent[path[path.length - 1]] = change.value;
            bytes = withHeader(bytes, header);
          }
        }
        await refusedOrReadable(Buffer.from(bytes));
      }),
      { numRuns: 600 },
    );
  });
});

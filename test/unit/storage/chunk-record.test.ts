/**
 * Chunk records from anywhere (a peer, a disk) are checked against their bytes: a valid record
 * round-trips, and a mutated or truncated one either is refused with a ChunkRecordError or
 * decodes into chunks that a query and a flush read whole.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { chunkBatch, chunkEventsOf } from '../../../storage/buffer/chunk-read';
import { ChunkRecordError } from '../../../storage/buffer/chunk-check';
import { decodeChunkRecord, encodeChunkRecord } from '../../../storage/buffer/chunk-record';
import { chunkEvents, unpackStrings, type EventChunk } from '../../../storage/buffer/event-chunk';
import { Generation } from '../../../storage/buffer/write-buffer';
import type { LogEvent } from '../../../storage/event';
import { buildSegments } from '../../../storage/lifecycle/segment-builder';
import type { Placement } from '../../../storage/partition';
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

const recordArb = fc.record({ events: fc.array(eventArb, { minLength: 1, maxLength: 30 }), partitions: fc.constantFrom(1, 3) }).map(({ events, partitions }) => {
  const placement: Placement = { bucketSpanMicros: HOUR, partitions };
  return { events, placement, record: encodeChunkRecord(chunkEvents(events, placement), placement) };
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
    const segments = await buildSegments(pool, table.chunks, table.key, { compressionLevel: 1, segmentMaxEvents: 7, level: 0, nextId: () => String(++id) });
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

  it('refuses a record whose header claims more rows than it holds', () => {
    const record = overClaimingRecord(2_000_000);
    assert.ok(record.length < 1000, String(record.length));
    assert.throws(() => decodeChunkRecord(record), (error: Error) => error instanceof ChunkRecordError && /claims 2000000 rows but holds 1 times/.test(error.message));
  });

  it('refuses what does not add up, by name: a section past the end, an unaligned one, a code past the dictionary, a time outside the bucket', () => {
    const events: LogEvent[] = [
      { time: 10, raw: 'a', index: 'main', fields: { host: 'h1', n: 1 } },
      { time: 20, raw: 'b', index: 'main', fields: { host: 'h2' } },
    ];
    const placement: Placement = { bucketSpanMicros: HOUR, partitions: 1 };
    const record = encodeChunkRecord(chunkEvents(events, placement), placement);
    type Header = { chunks: { times: number[]; count: number; key: { index: string; bucket: number }; fields: { name: string; codes: number[] | null }[] }[] };
    const refusal = (edit: (header: Header) => void, pattern: RegExp): void => {
      const header = headerOf(record) as unknown as Header;
      edit(header);
      assert.throws(() => decodeChunkRecord(withHeader(record, header)), (error: Error) => error instanceof ChunkRecordError && pattern.test(error.message), pattern.source);
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

  it('a record with a flipped byte, a number changed in its header or cut short is refused or read whole (property)', async () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('number' as const),
        at: fc.nat(),
        value: fc.oneof(fc.constantFrom(0, 1, -1, 2, 7, 8, 2 ** 31, 2 ** 32 + 8, 2_000_000, 1.5, 1e300), fc.integer({ min: -64, max: 4096 })),
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

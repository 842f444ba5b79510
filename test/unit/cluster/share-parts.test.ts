/**
 * A share cut into parts of bounded size (share-parts.ts, chunk-slice.ts): every row travels in
 * exactly one part, in order, with its fields; each part's record stays under the bound unless it
 * is a single row; a sliced string field carries only the dictionary entries its rows use.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { shareParts } from '../../../node/cluster/share-parts';
import { chunkEventsOf } from '../../../storage/buffer/chunk-read';
import { decodeChunkRecord, encodeChunkRecord } from '../../../storage/buffer/chunk-record';
import { sliceChunk } from '../../../storage/buffer/chunk-slice';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { LogEvent } from '../../../storage/core/event';
import { keyString, type Placement } from '../../../storage/core/partition';

const HOUR = 3_600_000_000;
const PLACEMENT: Placement = { bucketSpanMicros: HOUR, partitions: 4 };

const eventArb = fc.record({
  time: fc.integer({ min: 0, max: 2 * HOUR }),
  raw: fc.string({ unit: 'binary', maxLength: 200 }),
  index: fc.constantFrom('main', 'web'),
  fields: fc.dictionary(
    fc.constantFrom('host', 'source', 'status', 'msg', 'ok', 'user'),
    fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('a', 'b', '\ud800'),
      fc.integer({ min: -5, max: 5 }),
      fc.double({ noNaN: true }),
      fc.boolean(),
    ),
    { maxKeys: 5 },
  ),
});

/** Events of each key, in order, as the chunks hold them (a row's fields without the ones chunks drop). */
function eventsByKey(chunks: ReturnType<typeof chunkEvents>): Map<string, LogEvent[]> {
  const out = new Map<string, LogEvent[]>();
  for (const chunk of chunks) out.set(keyString(chunk.key), [...(out.get(keyString(chunk.key)) ?? []), ...chunkEventsOf(chunk)]);
  return out;
}

describe('share parts', () => {
  it('carry every row once, in order, each part under the bound unless a single row', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { minLength: 1, maxLength: 300 }), fc.integer({ min: 300, max: 20_000 }), (events, maxBytes) => {
        const chunks = chunkEvents(events as LogEvent[], PLACEMENT);
        const parts = shareParts(chunks, maxBytes);
        const decoded = parts.map((part) => {
          const record = encodeChunkRecord(part.chunks, PLACEMENT);
          const rows = part.chunks.reduce((sum, chunk) => sum + chunk.count, 0);
          assert.equal(part.events, rows);
          // The estimate leaves room for the header: a part of several rows stays near the bound.
          if (rows > 1)
            assert.ok(record.length <= maxBytes * 1.5 + 512, `a part of ${rows} rows takes ${record.length} bytes (bound ${maxBytes})`);
          return decodeChunkRecord(record).chunks;
        });
        assert.deepEqual(eventsByKey(decoded.flat()), eventsByKey(chunks));
      }),
      { numRuns: 150 },
    );
  });

  it('keep a share that fits in one part whole, without slicing its chunks', () => {
    const events: LogEvent[] = Array.from({ length: 50 }, (_, i) => ({
      time: i,
      raw: `line ${i}`,
      index: 'main',
      fields: { host: `h${i % 3}` },
    }));
    const chunks = chunkEvents(events, PLACEMENT);
    const parts = shareParts(chunks, 1 << 20);
    assert.equal(parts.length, 1);
    assert.deepEqual(parts[0]!.chunks, chunks);
  });

  it("slice a string field's dictionary down to the values its rows use", () => {
    const events: LogEvent[] = Array.from({ length: 1000 }, (_, i) => ({
      time: i,
      raw: 'x',
      index: 'main',
      fields: { user: `user-${i}` },
    }));
    const [chunk] = chunkEvents(events, { bucketSpanMicros: HOUR, partitions: 1 });
    const slice = sliceChunk(chunk!, 100, 110);
    const user = slice.fields.find((field) => field.name === 'user')!;
    assert.equal(user.dict!.ends.length, 10);
    assert.deepEqual(
      chunkEventsOf(slice).map((event) => event.fields.user),
      Array.from({ length: 10 }, (_, i) => `user-${100 + i}`),
    );
  });
});

/**
 * The hot-source spill (storage/core/request-placement.ts, which both ingest paths place through) on
 * both: the general one (chunkEvents) and the native byte scanner (scanNativeBatch). Within a
 * request, event k (from 0) of a (host, source) pair goes to partition (home + floor(k / 256)) mod
 * partitions, where home is the partition the pair's events go to when it sends few.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { bodyText } from '../../../node/ingest/format-dispatch';
import { parseNativeBatch } from '../../../node/ingest/native';
import { scanNativeBatch } from '../../../node/ingest/native-scan';
import { encodeChunkRecord } from '../../../storage/buffer/chunk-record';
import { chunkEvents, unpackStrings, type EventChunk } from '../../../storage/buffer/event-chunk';
import { SPILL_EVENTS } from '../../../storage/core/request-placement';
import type { PartitionKey, Placement } from '../../../storage/core/partition';
import { ctx } from '../ingest/helpers';

const HOUR = 3_600_000_000;
const T0 = 1_717_200_000_000_000;

interface Pair {
  host?: string;
  source?: string;
}
interface RequestEvent {
  pair: Pair;
  index: string;
  time: number;
}

const PAIRS: Pair[] = [
  { host: 'web-1', source: 'nginx' },
  { host: 'web-2', source: 'nginx' },
  { host: 'db-1' },
  { source: 'cron' },
  {},
  { host: 'é "q"', source: 'app\\1' },
];

/** A request as the JSON body of `POST /ingest` (native format); event i's text is `e<i>`. */
function bodyOf(events: readonly RequestEvent[]): Buffer {
  return Buffer.from(
    JSON.stringify(events.map((event, i) => ({ event: `e${i}`, time: event.time / 1e6, index: event.index, ...event.pair }))),
  );
}

/** A request's chunks, from the general path (JSON.parse, native.ts, chunkEvents) or the byte scanner. */
type Path = (events: readonly RequestEvent[], placement: Placement) => EventChunk[];

const general: Path = (events, placement) => {
  const parsed = parseNativeBatch(bodyText(bodyOf(events)), ctx());
  assert.equal(parsed.failed, 0);
  return chunkEvents(parsed.events, placement);
};

const scanner: Path = (events, placement) => {
  const chunks = scanNativeBatch(bodyOf(events), ctx(), placement);
  assert.ok(chunks !== null, 'the fast path takes the body');
  return chunks;
};

/** Each event's key, by its position in the request (its text is `e<position>`). */
function keysByEvent(chunks: readonly EventChunk[], count: number): PartitionKey[] {
  const keys: PartitionKey[] = new Array<PartitionKey>(count);
  for (const chunk of chunks) {
    const raws = unpackStrings(chunk.raws);
    let previous = -1;
    for (const raw of raws) {
      const position = Number(raw.slice(1));
      assert.ok(position > previous, 'a chunk keeps its events in request order');
      previous = position;
      assert.equal(keys[position], undefined, 'an event is in one chunk');
      keys[position] = chunk.key;
    }
  }
  assert.equal(Object.keys(keys).length, count, 'every event is in a chunk');
  return keys;
}

/** The partition a pair's events go to in a request of that pair alone, small enough to stay home. */
function homeOf(path: Path, pair: Pair, placement: Placement): number {
  const events = Array.from({ length: 3 }, (): RequestEvent => ({ pair, index: 'main', time: T0 }));
  const partitions = new Set(keysByEvent(path(events, placement), events.length).map((key) => key.partition));
  assert.equal(partitions.size, 1, 'a small pair stays in one partition');
  return [...partitions][0];
}

const requestArb = fc.array(
  fc.record({
    pair: fc.nat({ max: PAIRS.length - 1 }),
    index: fc.constantFrom('main', 'web'),
    time: fc.integer({ min: T0, max: T0 + 3 * HOUR - 1 }),
  }),
  { maxLength: 40 },
);
/** Requests with hot pairs: runs of one pair, long enough to spill, between other events. */
const hotRequestArb = fc
  .array(fc.tuple(requestArb, fc.nat({ max: PAIRS.length - 1 }), fc.integer({ min: 0, max: 700 })), { minLength: 1, maxLength: 4 })
  .map((parts) =>
    parts.flatMap(([mixed, hot, run]) => [
      ...mixed.map((event): RequestEvent => ({ ...event, pair: PAIRS[event.pair] })),
      ...Array.from({ length: run }, (_, i): RequestEvent => ({
        pair: PAIRS[hot],
        index: i % 3 === 0 ? 'web' : 'main',
        time: T0 + ((i * 7919) % (3 * HOUR)),
      })),
    ]),
  );

describe('hot-source spill', () => {
  it('keeps 256 events of a pair in a partition before the next', () => {
    assert.equal(SPILL_EVENTS, 256);
  });

  for (const [name, path] of [
    ['general path', general],
    ['byte scanner', scanner],
  ] as const) {
    describe(name, () => {
      it('sends event k of a pair to partition (home + floor(k / 256)) mod partitions, each pair counted alone (property)', () => {
        let spilled = 0;
        fc.assert(
          fc.property(hotRequestArb, fc.integer({ min: 2, max: 40 }), (events, partitions) => {
            const placement: Placement = { bucketSpanMicros: HOUR, partitions };
            const keys = keysByEvent(path(events, placement), events.length);
            const homes = new Map(PAIRS.map((pair) => [pair, homeOf(path, pair, placement)]));
            const seen = new Map<Pair, number>();
            events.forEach((event, i) => {
              const k = seen.get(event.pair) ?? 0;
              seen.set(event.pair, k + 1);
              const want = ((homes.get(event.pair) as number) + Math.floor(k / 256)) % partitions;
              assert.equal(keys[i].partition, want, `event ${i}, the pair's event ${k}`);
              assert.equal(keys[i].index, event.index);
              assert.equal(keys[i].bucket, event.time - ((event.time - T0) % HOUR));
            });
            if ([...seen.values()].some((count) => count > 256)) spilled++;
          }),
          { numRuns: 40 },
        );
        assert.ok(spilled >= 10, `only ${spilled} of 40 requests had a pair past 256 events`);
      });

      it('leaves pairs of fewer than 256 events in a request at home (property)', () => {
        fc.assert(
          fc.property(requestArb, fc.integer({ min: 2, max: 64 }), (drawn, partitions) => {
            const events = drawn.map((event): RequestEvent => ({ ...event, pair: PAIRS[event.pair] }));
            const placement: Placement = { bucketSpanMicros: HOUR, partitions };
            const keys = keysByEvent(path(events, placement), events.length);
            events.forEach((event, i) => assert.equal(keys[i].partition, homeOf(path, event.pair, placement)));
          }),
          { numRuns: 60 },
        );
      });

      it('spreads a request of 10,000 events from one host over min(partitions, 40) partitions', () => {
        const events = Array.from({ length: 10_000 }, (_, i): RequestEvent => ({ pair: PAIRS[0], index: 'main', time: T0 + i }));
        for (const partitions of [1, 3, 16, 40, 64]) {
          const chunks = path(events, { bucketSpanMicros: HOUR, partitions });
          assert.equal(chunks.length, Math.min(partitions, 40), `${partitions} partitions`);
          // Blocks of 256 dealt round the partitions from home (the last block holds 16).
          const want = new Map<number, number>();
          for (let i = 0; i < 10_000; i++)
            want.set(Math.floor(i / 256) % partitions, (want.get(Math.floor(i / 256) % partitions) ?? 0) + 1);
          const sizes = (list: number[]): number[] => list.sort((a, b) => a - b);
          assert.deepEqual(sizes(chunks.map((chunk) => chunk.count)), sizes([...want.values()]), `${partitions} partitions`);
        }
      });

      it('maps a request the same way every time', () => {
        fc.assert(
          fc.property(hotRequestArb, fc.integer({ min: 2, max: 20 }), (events, partitions) => {
            const placement: Placement = { bucketSpanMicros: HOUR, partitions };
            assert.ok(encodeChunkRecord(path(events, placement), placement).equals(encodeChunkRecord(path(events, placement), placement)));
          }),
          { numRuns: 15 },
        );
      });
    });
  }

  it('both paths place every event of a request alike', () => {
    fc.assert(
      fc.property(hotRequestArb, fc.integer({ min: 1, max: 20 }), (events, partitions) => {
        const placement: Placement = { bucketSpanMicros: HOUR, partitions };
        assert.ok(
          encodeChunkRecord(general(events, placement), placement).equals(encodeChunkRecord(scanner(events, placement), placement)),
        );
      }),
      { numRuns: 30 },
    );
  });
});

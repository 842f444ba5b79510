/**
 * What segment headers keep for GET /fields: the numbers' sketch and sum, the top values. Checked
 * against the test's own values: quantiles within the sketch's accuracy, exact counts while a
 * column has few distinct values, and folding (compaction's addColumn, merged sketches) equal to
 * one pass over the whole.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { rowSetOfPieces } from '../../../storage/buffer/chunk-read';
import { chunkEvents, groupChunkRows } from '../../../storage/buffer/event-chunk';
import type { FieldValue, LogEvent } from '../../../storage/core/event';
import type { Placement } from '../../../storage/core/partition';
import type { ColumnStats, SegmentHeader } from '../../../storage/segment/header';
import { encodeSegment } from '../../../storage/segment/segment-encoder';
import { sourceStatsOf } from '../../../storage/segment/source-stats';
import { mergeSegments } from '../../../storage/threads/codec-worker';
import { MAX_EXACT_VALUES, TopCounts } from '../../../storage/segment/top-values';
import { SKETCH_RELATIVE_ACCURACY, ValueSketch } from '../../../storage/segment/value-sketch';

const ONE_DAY: Placement = { bucketSpanMicros: 24 * 3_600_000_000, partitions: 1 };

function flushedHeader(
  events: readonly LogEvent[],
  blockRows: number,
  id = 's1',
): { header: SegmentHeader; blocks: Buffer[][]; blooms: Buffer[] } {
  const [pieces] = groupChunkRows(chunkEvents(events, ONE_DAY), Number.MAX_SAFE_INTEGER);
  const rows = rowSetOfPieces(pieces);
  const segment = encodeSegment(rows, { compressionLevel: 1, blockRows });
  const header: SegmentHeader = {
    ...segment.stats,
    version: 3,
    id,
    index: 'main',
    bucket: 0,
    partition: 0,
    level: 0,
    createdAt: 0,
    sources: sourceStatsOf(rows),
  };
  return { header, blocks: segment.blockData, blooms: segment.blooms };
}

function eventsOf(fields: Record<string, FieldValue>[], startMicros = 1_700_000_000_000_000): LogEvent[] {
  return fields.map((values, i) => ({ time: startMicros + i * 1000, raw: `line ${i}`, index: 'main', fields: values }));
}

const column = (header: SegmentHeader, name: string): ColumnStats => header.columns.find((c) => c.name === name)!;

/** The value at 0-based rank floor(q (n - 1)) of the sorted numbers. */
function exactQuantile(numbers: number[], q: number): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))];
}

function counts(values: readonly FieldValue[]): Map<FieldValue, number> {
  const out = new Map<FieldValue, number>();
  for (const value of values) out.set(value, (out.get(value) ?? 0) + 1);
  return out;
}

describe('discovery stats in segment headers', () => {
  it('a sketch answers every quantile within its relative accuracy, and merged sketches equal one over the whole (property)', () => {
    const number = fc.oneof(fc.integer({ min: -100_000, max: 100_000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
    fc.assert(
      fc.property(
        fc.array(number, { minLength: 1, maxLength: 400 }),
        fc.nat(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (numbers, cut, q) => {
          const whole = new ValueSketch();
          for (const x of numbers) whole.add(x);
          const split = cut % (numbers.length + 1);
          const left = new ValueSketch();
          const right = new ValueSketch();
          numbers.forEach((x, i) => (i < split ? left : right).add(x));
          const merged = ValueSketch.fromJSON(left.toJSON());
          merged.merge(right.toJSON());
          assert.deepEqual(merged.toJSON(), whole.toJSON());
          const min = Math.min(...numbers);
          const max = Math.max(...numbers);
          const expected = exactQuantile(numbers, q);
          const answer = whole.quantile(q, min, max)!;
          assert.ok(
            Math.abs(answer - expected) <= SKETCH_RELATIVE_ACCURACY * Math.abs(expected) + 1e-300,
            `q ${q}: ${answer} for ${expected}`,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('top counts are exact up to the limit of distinct values, and say so once past it', () => {
    const top = new TopCounts();
    for (let i = 0; i < MAX_EXACT_VALUES; i++) top.add(`v${i}`, i + 1);
    top.add(7, 1000);
    let finished = top.finish();
    assert.equal(finished.exact, false, `${MAX_EXACT_VALUES + 1} distinct values`);
    const small = new TopCounts();
    small.add('a', 2);
    small.add(404, 3);
    small.add('a', 5);
    finished = small.finish();
    assert.deepEqual(finished, {
      top: [
        ['a', 7],
        [404, 3],
      ],
      exact: true,
    });
    assert.equal(TopCounts.countable(1.5), null);
    assert.equal(TopCounts.countable(true), null);
  });

  it('a flushed segment keeps the sum, sketch and exact top values of its columns (several blocks)', () => {
    const statuses = [200, 200, 200, 404, 500, 301];
    const fields = Array.from({ length: 5000 }, (_, i) => {
      const values: Record<string, FieldValue> = { status: statuses[(i * 7) % statuses.length], host: `web-${i % 13}` };
      if (i % 3 === 0) values.ms = (i % 97) * 0.25;
      if (i % 5 === 0) values.bytes = i * 1_000_003; // a wide range: no exact top values
      return values;
    });
    const { header } = flushedHeader(eventsOf(fields), 1024);
    const status = column(header, 'status');
    assert.equal(
      status.sum,
      fields.reduce((sum, f) => sum + (f.status as number), 0),
    );
    assert.equal(status.topExact, true);
    assert.deepEqual(new Map(status.top), counts(fields.map((f) => f.status)));
    const host = column(header, 'host');
    assert.equal(host.topExact, true);
    assert.deepEqual(new Map(host.top), counts(fields.map((f) => f.host)));
    const ms = fields.filter((f) => f.ms !== undefined).map((f) => f.ms as number);
    assert.equal(
      column(header, 'ms').sum,
      ms.reduce((a, b) => a + b, 0),
    );
    const sketch = ValueSketch.fromJSON(column(header, 'ms').sketch!);
    assert.equal(sketch.count, ms.length);
    const p99 = sketch.quantile(0.99, Math.min(...ms), Math.max(...ms))!;
    assert.ok(Math.abs(p99 - exactQuantile(ms, 0.99)) <= SKETCH_RELATIVE_ACCURACY * exactQuantile(ms, 0.99));
    assert.equal(column(header, 'bytes').topExact, false, 'integers over a wide range are not counted exactly');
    assert.equal(column(header, '_time').top, undefined, '_time keeps no top values');
  });

  it('compaction folds the columns into what one segment of all the rows holds (sketch, exact top values, sum)', () => {
    const early = Array.from({ length: 3072 }, (_, i) => ({ level: ['info', 'warn', 'error'][i % 3], code: i % 17, ratio: (i % 8) / 4 }));
    const late = Array.from({ length: 2048 }, (_, i) => ({ level: ['info', 'debug'][i % 2], code: 100 + (i % 5) }));
    const first = flushedHeader(eventsOf(early), 1024, 's1');
    const second = flushedHeader(eventsOf(late, 1_700_000_010_000_000), 1024, 's2');
    const options = { compressionLevel: 1, blockRows: 1024, rawRefs: true };
    const merged = mergeSegments([first, second], options);
    assert.equal(merged.keptBlocks, true, 'the inputs keep their blocks: the stats come from addColumn');
    const whole = flushedHeader(eventsOf([...early, ...late]), 1024).header;
    for (const name of ['level', 'code', 'ratio']) {
      // Inputs of whole blocks, so the merge keeps them.
      const kept = merged.stats.columns.find((c) => c.name === name)!;
      const expected = column(whole, name);
      assert.deepEqual(kept.top, expected.top, name);
      assert.equal(kept.topExact, expected.topExact, name);
      assert.deepEqual(kept.sketch, expected.sketch, name);
      assert.equal(kept.sum, expected.sum, name);
    }
    assert.deepEqual(new Map(column(whole, 'level').top), counts([...early, ...late].map((f) => f.level)));
  });
});

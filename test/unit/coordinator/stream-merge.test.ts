import { strict as assert } from 'assert';
import fc from 'fast-check';
import { StreamMerge } from '../../../coordinator/stream-merge';
import type { TimedRow } from '../../../query/exec/rows';

/** A shard's stream: batches of rows newest first, each with the bound on what comes later. */
function batchesOf(times: number[], cut: number[]): { rows: TimedRow[]; bound: number }[] {
  const sorted = [...times].sort((a, b) => b - a);
  const batches: { rows: TimedRow[]; bound: number }[] = [];
  let at = 0;
  for (const size of [...cut, sorted.length]) {
    const rows = sorted.slice(at, at + size).map((time) => ({ time, row: { time } }));
    at += rows.length;
    batches.push({ rows, bound: at < sorted.length ? sorted[at]! : -Infinity });
    if (at >= sorted.length) break;
  }
  return batches;
}

describe("the newest-first merge of several shards' streams", () => {
  it("releases every row once, newest first, however the shards' batches interleave", () => {
    const shard = fc.tuple(
      fc.array(fc.integer({ min: 0, max: 500 }), { maxLength: 30 }),
      fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 5 }),
    );
    fc.assert(
      fc.property(fc.array(shard, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 60 }), (shards, picks) => {
        const merge = new StreamMerge();
        const streams = shards.map(([times, cut]) => ({ source: merge.open(), batches: batchesOf(times, cut), closed: false }));
        const out: number[] = [];
        let p = 0;
        for (;;) {
          const open = streams.filter((stream) => !stream.closed);
          if (open.length === 0) break;
          const stream = open[(picks[p++] ?? 0) % open.length]!;
          const batch = stream.batches.shift();
          if (batch === undefined) {
            stream.closed = true;
            out.push(...merge.close(stream.source).map((row) => row.time));
          } else out.push(...merge.add(stream.source, batch.rows, batch.bound).map((row) => row.time));
        }
        assert.equal(merge.waiting, 0);
        assert.deepEqual(
          out,
          shards.flatMap(([times]) => times).sort((a, b) => b - a),
        );
      }),
    );
  });

  it('holds a row while a shard that has sent nothing could still send a newer one', () => {
    const merge = new StreamMerge();
    const a = merge.open();
    const b = merge.open();
    assert.deepEqual(merge.add(a, [{ time: 10, row: {} }], 5), []);
    assert.deepEqual(
      merge.add(b, [], 8).map((row) => row.time),
      [10],
    );
  });

  it('withdraws a shard none of whose rows went out: its waiting rows never go out, and the others go on', () => {
    const merge = new StreamMerge();
    const a = merge.open();
    const b = merge.open();
    const c = merge.open();
    assert.deepEqual(
      merge.add(
        a,
        [
          { time: 10, row: {} },
          { time: 9, row: {} },
        ],
        9,
      ),
      [],
    );
    assert.deepEqual(
      merge.add(
        b,
        [
          { time: 12, row: {} },
          { time: 11, row: {} },
        ],
        11,
      ),
      [],
    );
    assert.equal(merge.waiting, 4);
    // c has sent nothing: nothing went out, so b can be given up and its keys read again.
    assert.equal(merge.sent(b), false);
    assert.deepEqual(merge.withdraw(b), []);
    assert.equal(merge.waiting, 2);
    const again = merge.open();
    assert.deepEqual(
      merge.add(c, [], 5).map((row) => row.time),
      [],
    );
    assert.deepEqual(
      merge
        .add(
          again,
          [
            { time: 12, row: {} },
            { time: 11, row: {} },
          ],
          8,
        )
        .map((row) => row.time),
      [12, 11, 10, 9],
    );
    assert.equal(merge.sent(a), true);
    assert.equal(merge.sent(again), true);
    assert.equal(merge.sent(c), false);
    assert.equal(merge.waiting, 0);
  });
});

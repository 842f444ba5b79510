/**
 * What a coordinator keeps of placement between queries. A kept answer must be the answer
 * placement would give now: a range's keys for any range over the same buckets, and a key's
 * owners while the same cluster state and replication factor hold.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { KeyAssignment } from '../../../coordinator/key-assignment';
import type { ClusterState } from '../../../node/cluster/cluster-state';
import { MAX_MEMO_KEYS, MAX_MEMO_RANGES, PlacementMemo, placedRangeKey } from '../../../node/cluster/placement-memo';
import { MAX_PLACED_KEYS, placedKeys } from '../../../node/cluster/query-distribution';

const HOUR = 3_600_000_000;
const T0 = 1_717_200_000_000_000;
const PLACEMENT = { bucketSpanMicros: HOUR, partitions: 4 };

function rangeKey(from: number, to: number, splits: number[] = [], indexes = ['main']): string | null {
  return placedRangeKey(indexes, from, to, PLACEMENT, MAX_PLACED_KEYS, splits);
}

/** Two states as the cluster makes them: separate objects (a change never edits one in place). */
function state(version: number): ClusterState {
  return { version } as unknown as ClusterState;
}

describe('placement memo', () => {
  it('gives two ranges one memo key exactly when placement gives them the same keys', () => {
    const range = fc.tuple(fc.integer({ min: 0, max: 6 * HOUR }), fc.integer({ min: 1, max: 3 * HOUR }));
    fc.assert(
      fc.property(
        range,
        range,
        fc.array(fc.integer({ min: 1, max: HOUR - 1 }), { maxLength: 2 }),
        ([offsetA, lengthA], [offsetB, lengthB], splitOffsets) => {
          const splits = [...new Set(splitOffsets)].sort((a, b) => a - b).map((offset) => T0 + HOUR + offset);
          const [fromA, toA, fromB, toB] = [T0 + offsetA, T0 + offsetA + lengthA, T0 + offsetB, T0 + offsetB + lengthB];
          const keysA = placedKeys(['main'], fromA, toA, PLACEMENT, MAX_PLACED_KEYS, splits);
          const keysB = placedKeys(['main'], fromB, toB, PLACEMENT, MAX_PLACED_KEYS, splits);
          const sameMemoKey = rangeKey(fromA, toA, splits) === rangeKey(fromB, toB, splits);
          assert.equal(sameMemoKey, JSON.stringify(keysA) === JSON.stringify(keysB));
        },
      ),
    );
  });

  it('keeps ranges that placement does not enumerate out of the memo', () => {
    assert.equal(rangeKey(T0, T0), null);
    assert.equal(rangeKey(-HOUR, T0), null);
    assert.equal(rangeKey(T0, Infinity), null);
    assert.notEqual(rangeKey(T0, T0 + 1), null);
  });

  it('places a range once, and again when its buckets differ', () => {
    const memo = new PlacementMemo();
    let placements = 0;
    const keysOf = (from: number, to: number): readonly string[] | null =>
      memo.keysOf(rangeKey(from, to)!, () => {
        placements++;
        return placedKeys(['main'], from, to, PLACEMENT);
      });
    const first = keysOf(T0 + 10, T0 + HOUR + 10);
    const later = keysOf(T0 + 70_000_000, T0 + HOUR + 70_000_000);
    assert.equal(placements, 1);
    assert.deepEqual(later, first);
    assert.equal(first!.length, 2 * PLACEMENT.partitions);
    const longer = keysOf(T0 + 10, T0 + 2 * HOUR + 10);
    assert.equal(placements, 2);
    assert.equal(longer!.length, 3 * PLACEMENT.partitions);
  });

  it('forgets the oldest range past its bound', () => {
    const memo = new PlacementMemo();
    let placements = 0;
    const place = (): string[] => {
      placements++;
      return [];
    };
    for (let i = 0; i <= MAX_MEMO_RANGES; i++) memo.keysOf(`range ${i}`, place);
    assert.equal(placements, MAX_MEMO_RANGES + 1);
    memo.keysOf(`range ${MAX_MEMO_RANGES}`, place);
    assert.equal(placements, MAX_MEMO_RANGES + 1, 'the newest range is kept');
    memo.keysOf('range 0', place);
    assert.equal(placements, MAX_MEMO_RANGES + 2, 'the oldest range was forgotten');
  });

  it('forgets the oldest ranges past its bound on keys, and never keeps a range above it', () => {
    const memo = new PlacementMemo();
    const placed: string[] = [];
    const range = (name: string, keys: number): void => {
      memo.keysOf(name, () => {
        placed.push(name);
        return Array.from({ length: keys }, (_, i) => `main|${i}|0`);
      });
    };
    const quarter = MAX_MEMO_KEYS / 4;
    for (const name of ['a', 'b', 'c', 'd']) range(name, quarter);
    range('a', quarter);
    assert.deepEqual(placed, ['a', 'b', 'c', 'd'], 'four quarters fit');
    range('e', 1);
    range('a', quarter);
    range('c', quarter);
    assert.deepEqual(placed, ['a', 'b', 'c', 'd', 'e', 'a'], 'one key more forgot the oldest range, and only it');
    range('huge', MAX_MEMO_KEYS + 1);
    range('huge', MAX_MEMO_KEYS + 1);
    assert.deepEqual(placed.slice(-2), ['huge', 'huge'], 'a range above the bound is placed each time');
    range('e', 1);
    assert.equal(placed.at(-1), 'huge', 'and forgets nothing kept');
  });

  it('keeps owners while one state and replication factor hold, and places again when either changes', () => {
    const memo = new PlacementMemo();
    const asked: string[] = [];
    const ownersOf = (key: string, at: ClusterState, factor: number, answer: string[]): readonly string[] =>
      memo.ownersOf(key, at, factor, (placed) => {
        asked.push(`${placed}@${factor}`);
        return answer;
      });
    const v1 = state(1);
    assert.deepEqual(ownersOf('main|0|1', v1, 1, ['a']), ['a']);
    assert.deepEqual(ownersOf('main|0|1', v1, 1, ['changed']), ['a']);
    assert.deepEqual(ownersOf('main|0|1', v1, 2, ['a', 'b']), ['a', 'b']);
    assert.deepEqual(ownersOf('main|0|1', state(2), 2, ['c', 'b']), ['c', 'b']);
    assert.deepEqual(asked, ['main|0|1@1', 'main|0|1@2', 'main|0|1@2']);
  });

  it('keeps the keys of a query and their assignment while one state and factor hold, and makes them again when either changes', () => {
    const memo = new PlacementMemo();
    const keys = ['main|0|1', 'main|0|2', 'main|1|1'];
    let listed = 0;
    let assigned = 0;
    const assignment = (): KeyAssignment => {
      assigned++;
      return {
        byNode: new Map([
          ['a', ['main|0|1', 'main|0|2']],
          ['b', ['main|1|1']],
        ]),
        missing: ['main|2|0'],
      };
    };
    const query = (at: ClusterState, factor: number, answering = 'a,b') =>
      memo.queryOf(`range/${answering}`, at, factor, () => {
        listed++;
        return keys;
      });
    const v1 = state(1);
    const first = query(v1, 1);
    const one = first.assigned(assignment);
    const again = query(v1, 1);
    assert.equal(again, first, 'the same range, state and factor keep the query');
    const two = again.assigned(assignment);
    assert.deepEqual([listed, assigned], [1, 1]);
    assert.deepEqual([...two.byNode], [...one.byNode]);
    assert.notEqual(two.byNode, one.byNode, 'each caller gets its own map');
    assert.notEqual(two.missing, one.missing);
    assert.deepEqual(first.keys, keys);
    assert.ok(Object.isFrozen(first.keys));
    assert.ok(
      [...two.byNode.values()].every((list) => Object.isFrozen(list)),
      'each node keeps its frozen list: its wire form and set are made once',
    );

    assert.notEqual(query(v1, 1, 'a'), first, 'other nodes answering: another query');
    assert.notEqual(query(v1, 2), first, 'another replication factor forgets it');
    const v2 = state(2);
    const later = query(v2, 2);
    assert.notEqual(later, first, 'another state forgets it');
    later.assigned(assignment);
    assert.deepEqual([listed, assigned], [4, 2]);
  });
});

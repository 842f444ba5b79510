/**
 * The keys a coordinator asks for without asking the nodes first: every key placement gives a
 * query's range of named indexes. Every event the query can match must fall in one of them, or
 * the answer would silently miss it; a glob, an unbounded range or too many keys leave it to the
 * nodes' Keys answers.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { keysWithoutOwners, MAX_PLACED_KEYS, placedKeys } from '../../../node/cluster/query-distribution';
import { ownersOf } from '../../../node/cluster/ring';
import { keyString } from '../../../storage/core/partition';

const HOUR = 3_600_000_000;
const T0 = 1_717_200_000_000_000;
const PLACEMENT = { bucketSpanMicros: HOUR, partitions: 4 };

describe('placed keys of a query range', () => {
  it('holds the key of every event a query over named indexes can match', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 48 * HOUR }),
        fc.integer({ min: 1, max: 24 * HOUR }),
        fc.array(fc.tuple(fc.constantFrom('main', 'web'), fc.double({ min: 0, max: 1, noNaN: true }), fc.nat({ max: 3 })), {
          minLength: 1,
          maxLength: 50,
        }),
        (offset, length, events) => {
          const from = T0 + offset;
          const to = from + length;
          const keys = new Set(placedKeys(['main', 'web'], from, to, PLACEMENT));
          for (const [index, where, partition] of events) {
            // An event time inside [from, to), in any partition the spill may have put it.
            const time = Math.min(to - 1, from + Math.floor(where * length));
            const bucket = Math.floor(time / HOUR) * HOUR;
            assert.ok(keys.has(keyString({ index, bucket, partition })), `${index} at ${time} (partition ${partition})`);
          }
        },
      ),
    );
  });

  it('names each key once: indexes x buckets x partitions', () => {
    const keys = placedKeys(['main', 'main', 'web'], T0 + 10, T0 + 2 * HOUR + 10, PLACEMENT)!;
    assert.equal(keys.length, 2 * 3 * 4);
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(keys.includes(`main|${T0 + 2 * HOUR}|3`));
    assert.deepEqual(placedKeys(['main'], T0, T0, PLACEMENT), []);
  });

  it('leaves globs, unbounded ranges and ranges of too many keys to the nodes', () => {
    for (const patterns of [['*'], ['ma*'], ['main', 'w?b']])
      assert.equal(placedKeys(patterns, T0, T0 + HOUR, PLACEMENT), null, patterns.join(','));
    assert.equal(placedKeys(['main'], Number.NEGATIVE_INFINITY, T0, PLACEMENT), null);
    assert.equal(placedKeys(['main'], T0, Number.POSITIVE_INFINITY, PLACEMENT), null);
    assert.equal(placedKeys(['main'], -HOUR, T0, PLACEMENT), null);
    const hours = MAX_PLACED_KEYS / PLACEMENT.partitions;
    assert.equal(placedKeys(['main'], T0, T0 + hours * HOUR, PLACEMENT)!.length, MAX_PLACED_KEYS);
    assert.equal(placedKeys(['main'], T0, T0 + hours * HOUR + 1, PLACEMENT), null);
    assert.equal(placedKeys(['main', 'web'], T0, T0 + hours * HOUR, PLACEMENT), null);
  });
});

describe('keys without an owner that can answer', () => {
  const placement = { replicationFactor: 1, bucketSpanMicros: HOUR, partitions: 4, retentionMs: 0, maxFutureMs: 0 };
  // n3 in epoch 0 only; forgotten through epoch 1; joined again as a new node in epoch 2.
  const epochs = [
    { epoch: 0, fromMicros: 0, members: ['n1', 'n2', 'n3'] },
    { epoch: 1, fromMicros: T0 + 2 * HOUR, members: ['n1', 'n2'] },
    { epoch: 2, fromMicros: T0 + 4 * HOUR, members: ['n1', 'n2', 'n3'] },
  ];
  // It had stored events alone before it first joined: given up with it too.
  const alone = { node: 'n3', partition: -5, indexes: ['main'], fromMicros: T0, toMicros: T0 + HOUR - 1 };
  const state = { epochs, storedAlone: [alone], forgotten: [{ id: 'n3', throughEpoch: 1, storedAlone: true }] };
  const ownedBy = (id: string, bucket: number): string[] =>
    [0, 1, 2, 3]
      .map((partition) => ({ index: 'main', bucket, partition }))
      .filter((key) => ownersOf(key, epochs, 1)[0] === id)
      .map(keyString);

  it("counts a forgotten node's keys of its epochs missing even when its id answers again, and its new keys not", () => {
    const answering = new Set(['n1', 'n2', 'n3']);
    const old = keysWithoutOwners(['main'], T0, T0 + 2 * HOUR, state, placement, answering);
    assert.deepEqual(old, [...ownedBy('n3', T0), ...ownedBy('n3', T0 + HOUR), keyString({ index: 'main', bucket: T0, partition: -5 })]);
    assert.ok(old.length > 1, 'n3 owned keys in epoch 0');
    assert.deepEqual(
      keysWithoutOwners(['main'], T0 + 4 * HOUR, T0 + 6 * HOUR, state, placement, answering),
      [],
      'the new n3 answers for its own epoch',
    );
    assert.deepEqual(
      keysWithoutOwners(['main'], T0, T0 + 2 * HOUR, { ...state, forgotten: [] }, placement, answering),
      [],
      'without the record its id would answer',
    );
  });
});

describe('keys without an owner, in a bucket split by an epoch', () => {
  it("leaves out a piece of the range's bucket that lies wholly before the range", () => {
    const placement = { replicationFactor: 1, bucketSpanMicros: HOUR, partitions: 4, retentionMs: 0, maxFutureMs: 0 };
    // n2 leaves the ring at a quarter past T0: the bucket splits there.
    const split = T0 + HOUR / 4;
    const state = {
      epochs: [
        { epoch: 0, fromMicros: 0, members: ['n1', 'n2'] },
        { epoch: 1, fromMicros: split, members: ['n1'] },
      ],
      storedAlone: [],
      forgotten: [],
    };
    const answering = new Set(['n1']);
    assert.deepEqual(
      keysWithoutOwners(['main'], split, T0 + HOUR, state, placement, answering),
      [],
      'from the split on only n1 places data',
    );
    const before = keysWithoutOwners(['main'], T0, T0 + HOUR, state, placement, answering);
    assert.ok(
      before.length > 0 && before.every((key) => key.startsWith(`main|${T0}|`)),
      `n2's keys of the first piece: ${before.join(' ')}`,
    );
  });
});

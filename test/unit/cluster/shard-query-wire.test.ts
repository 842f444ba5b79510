/**
 * What a coordinator and a shard exchange: export rows (exact numbers, NaN, the infinities and -0
 * included), query fragments (a head's newest share among them), and the node a job id names.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { jobNodeTag, nodeTagOfJob } from '../../../coordinator/jobs';
import { SHARD_QUERY } from '../../../node/cluster/grpc/proto';
import { fragmentFromWire, fragmentToWire, MAX_LISTED_INDEXES } from '../../../node/cluster/shard-query-wire';
import type { SessionSpec } from '../../../query/exec/worker-protocol';
import { decodeRows, encodeRows } from '../../../query/exec/shard-results';

const value = fc.oneof(fc.double(), fc.string(), fc.boolean(), fc.constant(null), fc.integer());
const timedRow = fc.record({
  time: fc.oneof(fc.integer({ min: 0, max: 2 ** 52 }), fc.constant(-Infinity)),
  row: fc.dictionary(fc.string({ minLength: 1 }), value),
});

const SPEC: SessionSpec = {
  text: 'from main',
  variables: {},
  fromMicros: 0,
  toMicros: 1,
  nowMicros: 1,
  limit: 1,
  offset: 0,
  profile: false,
  trace: false,
  stream: false,
};

describe('shard query wire', () => {
  it('export rows come back exactly as sent, in their order', () => {
    fc.assert(
      fc.property(fc.array(timedRow, { maxLength: 20 }), (rows) => {
        const back = decodeRows(encodeRows(rows));
        assert.equal(back.length, rows.length);
        // Object.is tells NaN and -0 apart, as the rows must be.
        rows.forEach((row, i) => {
          assert.ok(Object.is(back[i]!.time, row.time));
          assert.deepEqual(Object.keys(back[i]!.row), Object.keys(row.row));
          for (const key of Object.keys(row.row)) assert.ok(Object.is(back[i]!.row[key], row.row[key]), `${key}: ${String(row.row[key])}`);
        });
      }),
    );
  });

  it('a fragment comes back as sent', () => {
    const spec = fc
      .record({
        text: fc.string({ minLength: 1 }).filter((text) => text.trim() !== ''),
        variables: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer())),
        range: fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
        nowMicros: fc.nat(),
        limit: fc.nat(),
        offset: fc.nat(),
        profile: fc.boolean(),
        trace: fc.boolean(),
        stream: fc.boolean(),
        newestShare: fc.option(fc.integer({ min: 1, max: 2 ** 32 - 1 }), { nil: undefined }),
      })
      .map(({ range: [fromMicros, toMicros], newestShare, ...rest }) => ({
        ...rest,
        fromMicros,
        toMicros,
        ...(newestShare === undefined ? {} : { newestShare }),
      }));
    // Keys as keyString writes them: the callee refuses any other shape.
    const key = fc
      .tuple(fc.constantFrom('main', 'web-logs', 'a.b'), fc.integer({ min: -1e12, max: 1e15 }), fc.nat({ max: 4095 }))
      .map(([index, bucket, partition]) => `${index}|${bucket}|${partition}`);
    fc.assert(
      fc.property(
        spec,
        fc.array(key),
        fc.string({ maxLength: 128 }),
        fc.oneof(fc.constant(-Infinity), fc.double({ noNaN: true, min: -1e15, max: 1e15 })),
        (fragmentSpec, keys, fragmentId, headFloor) => {
          // As plain JSON values (the generated records have no prototype).
          const sent = JSON.parse(JSON.stringify({ spec: fragmentSpec, keys }));
          const back = fragmentFromWire(fragmentToWire({ spec: fragmentSpec, keys }, { fragmentId, headFloor }));
          assert.deepEqual(JSON.parse(JSON.stringify({ spec: back.spec, keys: back.keys })), sent);
          assert.equal(back.fragmentId, fragmentId);
          assert.ok(Object.is(back.headFloor, headFloor), `head floor ${headFloor}`);
        },
      ),
    );
  });

  it('keys sent as runs come back through protobuf as the same keys, with any sent as strings', () => {
    const request = SHARD_QUERY.Query;
    const key = fc
      .tuple(fc.constantFrom('main', 'web-logs'), fc.integer({ min: -1e12, max: 9e15 }), fc.integer({ min: -2, max: 63 }))
      .map(([index, bucket, partition]) => `${index}|${bucket}|${partition}`);
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 200 }), fc.uniqueArray(key, { maxLength: 5 }), (keys, asStrings) => {
        const sent = fragmentToWire({ spec: SPEC, keys }, undefined, true);
        assert.deepEqual(sent.keys, [], 'a callee that reads runs gets no key twice');
        const received = request.requestDeserialize(request.requestSerialize({ ...sent, keys: asStrings }));
        const back = fragmentFromWire(received).keys;
        assert.deepEqual([...back].sort(), [...new Set([...keys, ...asStrings])].sort());
      }),
    );
    // An older callee (before 1.11) reads keys as strings only: it gets no runs.
    const older = fragmentToWire({ spec: SPEC, keys: ['main|0|1'] });
    assert.deepEqual([older.keys, older.key_runs], [['main|0|1'], undefined]);
    const received = request.requestDeserialize(request.requestSerialize(older));
    assert.deepEqual(fragmentFromWire(received).keys, ['main|0|1']);
  });

  it('key runs are checked like keys', () => {
    const sent = fragmentToWire({ spec: SPEC, keys: ['main|0|1'] }, undefined, true);
    assert.throws(() => fragmentFromWire({ ...sent, key_runs: [{ index: 'no|pe', buckets: [0], partitions: [1] }] }), /not an index name/);
    assert.throws(() => fragmentFromWire({ ...sent, key_runs: [{ index: 'main', buckets: [0.5], partitions: [1] }] }), /bucket/);
    const many = Array.from({ length: 1001 }, (_, i) => i);
    assert.throws(
      () => fragmentFromWire({ ...sent, key_runs: [{ index: 'main', buckets: many, partitions: many }] }),
      /more than 1000000 keys/,
    );
  });

  it('the same key runs received again give the same frozen keys, and runs that differ in anything are read and checked anew', () => {
    const request = SHARD_QUERY.Query;
    const receive = (keys: string[]): readonly string[] =>
      fragmentFromWire(request.requestDeserialize(request.requestSerialize(fragmentToWire({ spec: SPEC, keys }, undefined, true)))).keys;
    const week = Array.from({ length: 168 }, (_, hour) => [1, 5, 9].map((partition) => `main|${hour * 3_600_000_000}|${partition}`)).flat();
    const first = receive(week);
    assert.ok(Object.isFrozen(first), 'a kept list is frozen: its set is made once (coordinator/key-sets.ts)');
    assert.equal(receive([...week]), first, 'the same runs, sent again');
    assert.deepEqual([...first].sort(), [...week].sort());
    const other = receive(week.slice(1));
    assert.notEqual(other, first);
    assert.equal(other.length, week.length - 1);
    const sent = fragmentToWire({ spec: SPEC, keys: week }, undefined, true);
    const renamed = sent.key_runs!.map((run) => ({ ...run, index: 'no|pe' }));
    assert.throws(() => fragmentFromWire({ ...sent, key_runs: renamed }), /not an index name/, 'nothing kept passes a run unchecked');
    const withStrings = fragmentFromWire({ ...sent, keys: ['main|0|2'] }).keys;
    assert.ok(!Object.isFrozen(withStrings), 'runs beside strings are a list of their own');
    assert.equal(withStrings.length, week.length + 1);
  });

  it("a fragment's listed index names come back through protobuf as sent, and none listed stays none", () => {
    const request = SHARD_QUERY.Query;
    const through = (indexes: readonly string[] | undefined): readonly string[] | undefined => {
      const fragment = indexes === undefined ? { spec: SPEC, keys: ['main|0|1'] } : { spec: SPEC, keys: ['main|0|1'], indexes };
      return fragmentFromWire(request.requestDeserialize(request.requestSerialize(fragmentToWire(fragment)))).indexes;
    };
    const name = fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,20}$/);
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 30 }), (names) => {
        assert.deepEqual(through(names), names);
      }),
    );
    assert.deepEqual(through([]), [], 'an empty list is a list: the globs matched no index the coordinator knew');
    assert.equal(through(undefined), undefined, 'no list: the callee checks nothing');
  });

  it('listed index names are checked like the names of keys, and counted before use', () => {
    const sent = fragmentToWire({ spec: SPEC, keys: ['main|0|1'], indexes: ['main'] });
    for (const bad of ['no|pe', '', 'Upper', '_audit-not']) {
      assert.throws(() => fragmentFromWire({ ...sent, listed_indexes: { names: ['main', bad] } }), /not an index name/, bad);
    }
    const many = Array.from({ length: MAX_LISTED_INDEXES + 1 }, (_, i) => `i${i}`);
    assert.throws(() => fragmentFromWire({ ...sent, listed_indexes: { names: many } }), /more than 65536/);
  });

  it('a fragment with variables that are not a JSON object, an empty text, or counts that are not whole is refused', () => {
    const wire = fragmentToWire({ spec: SPEC, keys: [] });
    for (const variables of ['[]', '3', 'null', '{']) assert.throws(() => fragmentFromWire({ ...wire, variables_json: variables }));
    assert.throws(() => fragmentFromWire({ ...wire, text: '' }), /empty/);
    assert.throws(() => fragmentFromWire({ ...wire, limit: 0.5 }), /limit/);
    for (const share of [-1, 2.5, Number.NaN]) assert.throws(() => fragmentFromWire({ ...wire, newest_share: share }), /newest_share/);
    assert.equal(fragmentFromWire({ ...wire, newest_share: 0 }).spec.newestShare, undefined, 'a share of 0 is none');
  });

  it('a job id names the node that made it, whatever its id', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.uint8Array({ minLength: 9, maxLength: 9 }), (nodeId, random) => {
        const id = `qry_${jobNodeTag(nodeId)}_${Buffer.from(random).toString('base64url')}`;
        assert.equal(nodeTagOfJob(id), jobNodeTag(nodeId));
      }),
    );
    for (const other of ['qry_abc', 'job_node1_AAAAAAAAAAAA', 'qry__AAAAAAAAAAAA', 'qry_node1_AAAA'])
      assert.equal(nodeTagOfJob(other), null, other);
  });
});

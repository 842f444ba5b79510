/**
 * A query answered by parts: each part scans only its own partition keys (as a node of a cluster
 * answers for the keys it was chosen for), combines its sessions into one result, sends it as
 * bytes, and the coordinator merges the parts. The answer must equal the one the whole storage
 * gives at once, for every kind of query boundary.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { localScanSource } from '../../../node/core/local-scan-source';
import { executePlan, scanShards, type ExecuteOptions } from '../../../query/exec/execute';
import { finishResult } from '../../../query/exec/result';
import {
  combineShardResults,
  decodeRows,
  decodeShardResult,
  encodeRows,
  encodeShardResult,
  mergeShardResults,
} from '../../../query/exec/shard-results';
import { QueryWorkerPool } from '../../../query/exec/session-pool';
import { parseQuery, planQuery } from '../../../query/stages';
import type { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import type { TimedRow } from '../../../query/exec/rows';
import { openTestEngine } from '../../helpers/engine';
import { executeOptions, sessionSpec } from '../../helpers/query-run';
import { prng } from '../../../scripts/bench/generate';

const HOUR = 3_600_000_000;
const BASE = Date.UTC(2026, 0, 5) * 1000;

function events(count: number): LogEvent[] {
  const next = prng(7);
  return Array.from({ length: count }, (_, i) => ({
    time: BASE + Math.floor(next() * 6 * HOUR),
    raw: `request ${i} ${next() < 0.1 ? 'timeout' : 'ok'} path=/p${i % 7}`,
    index: next() < 0.7 ? 'main' : 'web',
    fields: {
      host: `h${Math.floor(next() * 9)}`,
      source: next() < 0.5 ? 'nginx' : 'app',
      status: [200, 200, 404, 500][Math.floor(next() * 4)],
      ms: Math.round(next() * 1000) / 10,
      ...(next() < 0.05 ? { ratio: [Infinity, -Infinity, -0][i % 3] } : {}),
    },
  }));
}

const QUERIES = [
  'from * | stats count(), avg(ms), max(ms), dc(host), p90(ms), values(status) by host',
  'from * | where status >= 500 | top 3 host by source',
  'from * | search timeout | head 17',
  'from main | where ms > 20',
  'from * | sort ms desc, host | head 25',
  'from * | sort host',
  'from * | sort status | dedup host | keep host, status',
  'from * | extend r = ms / 0 | head 5 | keep r, ratio',
];

describe('a query answered by parts, each over its own partition keys', function () {
  this.timeout(60_000);
  let engine: StorageEngine;
  let pool: QueryWorkerPool;
  let keys: string[];

  before(async () => {
    engine = await openTestEngine({ placement: { bucketSpanMicros: HOUR, partitions: 4 } });
    const all = events(6000);
    await engine.appendEvents(all.slice(0, 4000));
    await engine.flush();
    await engine.appendEvents(all.slice(4000));
    pool = new QueryWorkerPool(2);
    keys = [...engine.localKeys({ index: () => true, fromMicros: 0, toMicros: Number.MAX_SAFE_INTEGER })].sort();
    assert.ok(keys.length >= 20, `${keys.length} keys`);
  });

  after(async () => {
    await pool.close();
    await engine.close();
  });

  function options(text: string, page: { limit: number; offset: number }, keySet?: ReadonlySet<string>): ExecuteOptions {
    return executeOptions(
      pool,
      sessionSpec(text, { fromMicros: 0, toMicros: BASE + 24 * HOUR, nowMicros: BASE + 24 * HOUR }, page),
      keySet,
    );
  }

  it("gives the whole storage's answer for any split of the keys into parts (a property over splits)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...QUERIES),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: keys.length, maxLength: keys.length }),
        fc.record({ limit: fc.integer({ min: 1, max: 40 }), offset: fc.integer({ min: 0, max: 10 }) }),
        async (text, partOfKey, page) => {
          const plan = planQuery(parseQuery(text, {}), { fromMicros: 0, toMicros: BASE + 24 * HOUR, nowMicros: BASE + 24 * HOUR });
          const source = localScanSource(engine);
          const whole = await executePlan(source, plan, options(text, page));
          const parts = [0, 1, 2].map((part) => new Set(keys.filter((_, k) => partOfKey[k] === part)));
          const sent = await Promise.all(
            parts.map(async (part) =>
              encodeShardResult(combineShardResults(await scanShards(source, plan, options(text, page, part)), plan, page)),
            ),
          );
          const merged = mergeShardResults(sent.map(decodeShardResult), plan, page);
          assert.deepEqual(finishResult(plan, merged, page), whole.data, text);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps NaN, the infinities and -0 through the bytes', () => {
    const result = {
      matched: 1,
      newest: [{ time: 5, row: { a: Infinity, b: -Infinity, c: NaN, d: -0, e: 0, $nonFinite: 'x' } }],
      sorted: null,
      all: null,
      partial: null,
      opStats: null,
      stats: {
        segmentsTotal: 0,
        segmentsScanned: 0,
        segmentsSkippedIndex: 0,
        segmentsSkippedTime: 0,
        segmentsSkippedStats: 0,
        segmentsSkippedBloom: 0,
        blocksSkippedRange: 0,
        blocksSkippedBloom: 0,
        bufferedEvents: 0,
        rowsRead: 0,
        bytesRead: 0,
        blocksCached: 0,
        decisions: null,
      },
      memoryBytes: 0,
    };
    const decoded = decodeShardResult(encodeShardResult(result));
    const row = decoded.newest![0]!.row;
    assert.equal(row.a, Infinity);
    assert.equal(row.b, -Infinity);
    assert.ok(Number.isNaN(row.c));
    assert.ok(Object.is(row.d, -0));
    assert.ok(Object.is(row.e, 0));
    assert.equal(row.$nonFinite, 'x');
  });

  it('gives back any value of numbers, strings, arrays and objects exactly through the bytes (property)', () => {
    const number = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 0), fc.integer());
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        number,
        fc.string(),
        fc.constant(null),
        fc.boolean(),
        fc.array(tie('value'), { maxLength: 6 }),
        fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 5, noNullPrototype: true }),
      ),
    }));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 8 }), (rows) => {
        const timed = rows.map((row, i) => ({ time: i, row: { v: row } as unknown as TimedRow['row'] }));
        assert.deepEqual(decodeRows(encodeRows(timed)), timed);
      }),
      { numRuns: 300 },
    );
  });
});

// StatsAccumulator's fast paths (dictionary-code histograms, row counts per group, runs of number
// keys, typed reads of number arguments) against a plain per-row computation on random batches.

import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { Column, ColumnBatch } from '../../../storage/core/column';
import { parseQuery, planQuery } from '../../../query/stages';
import { StatsAccumulator, type StatsSpec } from '../../../query/exec/stats';
import type { Value } from '../../../query/value';
import { StringInterner } from '../../../storage/segment/string-intern';

/** Interns the entries of 'interned' columns; a batch may clear it first (a new epoch). */
const interner = new StringInterner();

function specOf(text: string): StatsSpec {
  const plan = planQuery(parseQuery(text), { fromMicros: 2 ** 40, toMicros: 2 ** 40 + 1e18, nowMicros: 1e15 });
  assert.equal(plan.boundary.kind, 'stats');
  return (plan.boundary as { spec: StatsSpec }).spec;
}

type Cell = string | number | null;

/** A column of the given encoding holding `values` (dict columns use a sorted dictionary). */
function columnOf(kind: ColumnKind, values: Cell[]): Column {
  switch (kind) {
    case 'dict':
    case 'interned': {
      const dict = ['', ...[...new Set(values.filter((v) => v !== null).map(String))].sort()];
      const codes = new Uint16Array(values.map((v) => (v === null ? 0 : dict.indexOf(String(v)))));
      if (kind === 'dict') return { kind: 'dict', dict, codes };
      // As decodeDictRows makes them: entry ids of the entries, the strings the interner's own.
      const ids = Int32Array.from(dict, (value, code) =>
        code === 0 ? -1 : interner.entryOf(Buffer.from(value), 0, Buffer.byteLength(value), 'utf8'),
      );
      return {
        kind: 'dict',
        dict: dict.map((value, code) => (code === 0 ? value : interner.stringAt(ids[code]))),
        codes,
        interned: { ids, epoch: interner.epoch },
      };
    }
    case 'string':
      return { kind: 'string', values: values.map((v) => (v === null ? null : String(v))) };
    case 'number':
      return {
        kind: 'number',
        values: Float64Array.from(values, (v) => (typeof v === 'number' ? v : 0)),
        nulls: Uint8Array.from(values, (v) => (v === null ? 1 : 0)),
        allIntegers: true,
      };
    case 'const':
      return { kind: 'const', value: values[0] ?? null, length: values.length };
  }
}

type ColumnKind = 'dict' | 'interned' | 'string' | 'number' | 'const';

interface RandomBatch {
  kind: ColumnKind;
  /** Clears the interner before the batch is made (its entry ids then name other strings). */
  clearInterner: boolean;
  keys: Cell[];
  xs: (number | null)[];
  selected: boolean[];
}

const numberKeyArb: fc.Arbitrary<Cell> = fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constant(null));
const stringKeyArb: fc.Arbitrary<Cell> = fc.oneof(fc.constantFrom('a', 'b', 'web-1', 'web-10', 'z'), fc.constant(null));

const batchArb: fc.Arbitrary<RandomBatch> = fc
  .record({
    kind: fc.constantFrom<ColumnKind>('dict', 'interned', 'interned', 'string', 'number', 'const'),
    size: fc.integer({ min: 1, max: 200 }),
    seed: fc.integer(),
  })
  .chain(({ kind, size }) =>
    fc.record({
      kind: fc.constant(kind),
      clearInterner: fc.boolean(),
      // Few distinct keys, in runs and not, with nulls.
      keys: fc.array(kind === 'number' ? numberKeyArb : stringKeyArb, { minLength: size, maxLength: size }),
      xs: fc.array(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constant(null)), { minLength: size, maxLength: size }),
      selected: fc.array(fc.boolean(), { minLength: size, maxLength: size }),
    }),
  )
  .map((batch) => (batch.kind === 'const' ? { ...batch, keys: batch.keys.map(() => batch.keys[0]) } : batch));

function toBatch(batch: RandomBatch): { columns: ColumnBatch; sel: Uint32Array; n: number } {
  const rows = batch.keys.length;
  if (batch.clearInterner && batch.kind === 'interned') interner.clear();
  const columns = new Map<string, Column>([
    ['k', columnOf(batch.kind, batch.keys)],
    ['x', columnOf('number', batch.xs)],
    ['_time', { kind: 'time', values: Float64Array.from(batch.keys, (_, i) => i) }],
  ]);
  const sel = new Uint32Array(rows);
  let n = 0;
  batch.selected.forEach((on, row) => {
    if (on) sel[n++] = row;
  });
  return { columns: { rowCount: rows, columns }, sel, n };
}

/** Per group (keyed by JSON of the key): rows, and the numbers of x. */
function reference(batches: RandomBatch[]): Map<string, { rows: number; xs: number[] }> {
  const groups = new Map<string, { rows: number; xs: number[] }>();
  for (const batch of batches) {
    batch.keys.forEach((key, row) => {
      if (!batch.selected[row]) return;
      const id = JSON.stringify(key);
      const group = groups.get(id) ?? { rows: 0, xs: [] };
      group.rows++;
      const x = batch.xs[row];
      if (x !== null) group.xs.push(x);
      groups.set(id, group);
    });
  }
  return groups;
}

function run(text: string, batches: RandomBatch[], viaPartial: boolean): Value[][] {
  const shard = new StatsAccumulator(specOf(text));
  for (const batch of batches) {
    const { columns, sel, n } = toBatch(batch);
    shard.add(columns, sel, n);
  }
  if (!viaPartial) return shard.rows();
  const merged = new StatsAccumulator(specOf(text));
  merged.mergePartial(JSON.parse(JSON.stringify(shard.toPartial())));
  return merged.rows();
}

describe('stats grouping fast paths', () => {
  it('count() by a key equals a per-row count, for every column kind and selection', () => {
    fc.assert(
      fc.property(fc.array(batchArb, { minLength: 1, maxLength: 6 }), fc.boolean(), (batches, viaPartial) => {
        const expected = reference(batches);
        const rows = run('from main | stats count(), count() as c2 by k', batches, viaPartial);
        const got = new Map(rows.map((row) => [JSON.stringify(row[0]), row.slice(1)]));
        assert.equal(got.size, expected.size);
        for (const [key, group] of expected) assert.deepEqual(got.get(key), [group.rows, group.rows], key);
      }),
      { numRuns: 300 },
    );
  });

  it('count() with avg/min/max/count(x) by a key equals a per-row computation', () => {
    fc.assert(
      fc.property(fc.array(batchArb, { minLength: 1, maxLength: 6 }), fc.boolean(), (batches, viaPartial) => {
        const expected = reference(batches);
        const rows = run('from main | stats count(), avg(x), min(x), max(x), count(x) by k', batches, viaPartial);
        const got = new Map(rows.map((row) => [JSON.stringify(row[0]), row.slice(1)]));
        assert.equal(got.size, expected.size);
        for (const [key, { rows: count, xs }] of expected) {
          const [c, avg, min, max, cx] = got.get(key) as number[];
          assert.equal(c, count, key);
          assert.equal(cx, xs.length, key);
          if (xs.length === 0) {
            assert.deepEqual([avg, min, max], [null, null, null], key);
            continue;
          }
          assert.ok(Math.abs(avg - xs.reduce((a, b) => a + b, 0) / xs.length) < 1e-9, key);
          assert.equal(min, Math.min(...xs), key);
          assert.equal(max, Math.max(...xs), key);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('partials of several shards merge (as JSON) to the single-shard answer, with one, two and three keys', () => {
    const queries = [
      'from main | stats count(), avg(x), max(x) by k',
      'from main | stats count(), sum(x) by k, x',
      'from main | stats count(), min(x) by k, x, k as k2',
    ];
    fc.assert(
      fc.property(
        fc.array(batchArb, { minLength: 2, maxLength: 8 }),
        fc.integer({ min: 2, max: 4 }),
        fc.constantFrom(...queries),
        (batches, shardCount, text) => {
          const single = new StatsAccumulator(specOf(text));
          const shards = Array.from({ length: shardCount }, () => new StatsAccumulator(specOf(text)));
          batches.forEach((batch, b) => {
            const { columns, sel, n } = toBatch(batch);
            single.add(columns, sel, n);
            const again = toBatch(batch);
            shards[b % shardCount].add(again.columns, again.sel, again.n);
          });
          const merged = new StatsAccumulator(specOf(text));
          for (const shard of shards) merged.mergePartial(JSON.parse(JSON.stringify(shard.toPartial())));
          const round = (rows: Value[][]): Value[][] =>
            rows.map((row) => row.map((v) => (typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v)));
          assert.deepEqual(round(merged.rows()), round(single.rows()));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a partial whose keys or aggregates do not match the query is refused', () => {
    const merged = new StatsAccumulator(specOf('from main | stats count() by k'));
    assert.throws(() => merged.mergePartial({ groupCount: 1, keys: [['a'], ['b']], states: [[1]] }), /do not match/);
    assert.throws(() => merged.mergePartial({ groupCount: 1, keys: [['a']], states: [[-1]] }), /invalid partial state for count/);
    assert.throws(() => merged.mergePartial({ groupCount: 1, keys: [['a']], states: [[1.5]] }), /invalid partial state for count/);
    const two = new StatsAccumulator(specOf('from main | stats count(), count() as c2 by k'));
    assert.throws(() => two.mergePartial({ groupCount: 1, keys: [['a']], states: [[1], [2]] }), /row counts of a group disagree/);
    // The first partial's keys are taken as distinct; a repeat shows when the next one is merged.
    const first = new StatsAccumulator(specOf('from main | stats count() by k'));
    first.mergePartial({ groupCount: 2, keys: [['a', 'a']], states: [[1, 2]] });
    assert.throws(() => first.mergePartial({ groupCount: 1, keys: [['b']], states: [[1]] }), /a key repeats/);
  });

  it('count() and rate() by a key (row counters without state objects) agree with count() next to another aggregate', () => {
    fc.assert(
      fc.property(fc.array(batchArb, { minLength: 1, maxLength: 6 }), fc.boolean(), (batches, viaPartial) => {
        const counters = run('from main | stats count(), rate() by k', batches, viaPartial);
        const general = run('from main | stats count(), max(x) by k', batches, viaPartial);
        assert.deepEqual(
          counters.map((row) => row.slice(0, 2)),
          general.map((row) => row.slice(0, 2)),
        );
        // The query range of specOf is 1e18 microseconds long: 1e12 seconds.
        for (const row of counters) assert.equal(row[2], (row[1] as number) / 1e12);
      }),
      { numRuns: 200 },
    );
  });

  it('count() without keys counts the selected rows', () => {
    fc.assert(
      fc.property(fc.array(batchArb, { minLength: 1, maxLength: 6 }), (batches) => {
        const selected = batches.reduce((sum, batch) => sum + batch.selected.filter((on) => on).length, 0);
        assert.deepEqual(run('from main | stats count()', batches, false), [[selected]]);
      }),
      { numRuns: 100 },
    );
  });
});

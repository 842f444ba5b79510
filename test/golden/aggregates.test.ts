/**
 * Golden tests, aggregates: every aggregate of docs/language.md over the dataset, without keys, by one or
 * two keys and by time buckets, compared with plain-JS references. Exact (1e-9 relative) except dc
 * (HyperLogLog: < 2% relative error) and percentiles (sketch: < 1% relative error vs the exact value
 * at rank floor(q * (n - 1))). Also default column names and referring to a column after stats.
 */
import { strict as assert } from 'assert';
import {
  EVENTS,
  exactPercentile,
  FROM_MS,
  get,
  inIndexes,
  keyOrder,
  num,
  numbers,
  sampleVariance,
  statsGroups,
  sum,
  TO_MS,
  type GoldenEvent,
  type V,
} from './dataset';
import { aggregate, close, golden, invalid, same, table } from './server';

type Kind = 'exact' | 'dc' | 'pct' | 'rate';

interface AggCase {
  call: string;
  kind: Kind;
  ref: (group: GoldenEvent[]) => V;
}

const f = (e: GoldenEvent, name: string): V => get(e, name);

/** Events with a non-null value, in time order. */
const present = (group: GoldenEvent[], field: string): GoldenEvent[] =>
  group.filter((e) => f(e, field) !== null).sort((a, b) => a.timeMs - b.timeMs);

function minMax(group: GoldenEvent[], field: string, max: boolean): V {
  const nums = numbers(group, field);
  if (nums.length > 0) return max ? Math.max(...nums) : Math.min(...nums);
  const texts = group.map((e) => f(e, field)).filter((v): v is string => typeof v === 'string');
  if (texts.length === 0) return null;
  return texts.reduce((a, b) => (max ? (b > a ? b : a) : b < a ? b : a));
}

function valuesOf(group: GoldenEvent[], field: string): V {
  const seen = new Map<string, string | number | boolean>();
  for (const e of group) {
    const v = f(e, field);
    if (v !== null) seen.set(`${typeof v}:${String(v)}`, v);
  }
  if (seen.size === 0) return null;
  return JSON.stringify([...seen.values()].sort((a, b) => keyOrder(a, b)).slice(0, 100));
}

function distinct(group: GoldenEvent[], field: string): number {
  return new Set(
    group
      .map((e) => f(e, field))
      .filter((v) => v !== null)
      .map((v) => `${typeof v}:${String(v)}`),
  ).size;
}

const RANGE_SECONDS = (TO_MS - FROM_MS) / 1000;

/** The aggregates over one numeric field, by name. */
function numericCases(field: string): AggCase[] {
  const nums = (g: GoldenEvent[]): number[] => numbers(g, field);
  const pct =
    (q: number) =>
    (g: GoldenEvent[]): V =>
      exactPercentile(nums(g), q);
  return [
    { call: `count(${field})`, kind: 'exact', ref: (g) => g.filter((e) => f(e, field) !== null).length },
    { call: `sum(${field})`, kind: 'exact', ref: (g) => (nums(g).length === 0 ? null : sum(nums(g))) },
    { call: `avg(${field})`, kind: 'exact', ref: (g) => (nums(g).length === 0 ? null : sum(nums(g)) / nums(g).length) },
    { call: `min(${field})`, kind: 'exact', ref: (g) => minMax(g, field, false) },
    { call: `max(${field})`, kind: 'exact', ref: (g) => minMax(g, field, true) },
    { call: `dc(${field})`, kind: 'dc', ref: (g) => distinct(g, field) },
    { call: `first(${field})`, kind: 'exact', ref: (g) => (present(g, field).length ? f(present(g, field)[0]!, field) : null) },
    { call: `last(${field})`, kind: 'exact', ref: (g) => (present(g, field).length ? f(present(g, field).at(-1)!, field) : null) },
    { call: `earliest(${field})`, kind: 'exact', ref: (g) => (present(g, field).length ? f(present(g, field)[0]!, field) : null) },
    { call: `latest(${field})`, kind: 'exact', ref: (g) => (present(g, field).length ? f(present(g, field).at(-1)!, field) : null) },
    { call: `median(${field})`, kind: 'pct', ref: pct(0.5) },
    { call: `p50(${field})`, kind: 'pct', ref: pct(0.5) },
    { call: `p75(${field})`, kind: 'pct', ref: pct(0.75) },
    { call: `p90(${field})`, kind: 'pct', ref: pct(0.9) },
    { call: `p95(${field})`, kind: 'pct', ref: pct(0.95) },
    { call: `p99(${field})`, kind: 'pct', ref: pct(0.99) },
    { call: `percentile(${field}, 33.3)`, kind: 'pct', ref: pct(0.333) },
    { call: `percentile(${field}, 100)`, kind: 'pct', ref: pct(1) },
    {
      call: `stdev(${field})`,
      kind: 'exact',
      ref: (g) => {
        const v = sampleVariance(nums(g));
        return v === null ? null : Math.sqrt(v);
      },
    },
    { call: `var(${field})`, kind: 'exact', ref: (g) => sampleVariance(nums(g)) },
  ];
}

const GENERAL: AggCase[] = [
  { call: 'count()', kind: 'exact', ref: (g) => g.length },
  { call: 'countif(status >= 500)', kind: 'exact', ref: (g) => g.filter((e) => (num(f(e, 'status')) ?? -1) >= 500).length },
  {
    call: 'countif(level = "error" or cached)',
    kind: 'exact',
    ref: (g) => g.filter((e) => f(e, 'level') === 'error' || f(e, 'cached') === true).length,
  },
  { call: 'count(user)', kind: 'exact', ref: (g) => g.filter((e) => f(e, 'user') !== null).length },
  { call: 'count(no_such_field)', kind: 'exact', ref: () => 0 },
  { call: 'dc(user)', kind: 'dc', ref: (g) => distinct(g, 'user') },
  { call: 'values(level)', kind: 'exact', ref: (g) => valuesOf(g, 'level') },
  { call: 'values(user)', kind: 'exact', ref: (g) => valuesOf(g, 'user') },
  { call: 'min(user)', kind: 'exact', ref: (g) => minMax(g, 'user', false) },
  { call: 'max(user)', kind: 'exact', ref: (g) => minMax(g, 'user', true) },
  { call: 'first(user)', kind: 'exact', ref: (g) => (present(g, 'user').length ? f(present(g, 'user')[0]!, 'user') : null) },
  { call: 'last(_raw)', kind: 'exact', ref: (g) => [...g].sort((a, b) => a.timeMs - b.timeMs).at(-1)!.raw },
  // rate(): a strict check has its own test below; here 1e-6 so the 1 ms question does not hide the rest
  { call: 'rate()', kind: 'rate', ref: (g) => g.length / RANGE_SECONDS },
];

/** Runs `stats <calls> by <keys>` and checks every cell. */
async function checkStats(
  from: string,
  cases: AggCase[],
  keys: { text: string; value: (e: GoldenEvent) => V }[],
  pool: readonly GoldenEvent[],
  where = '',
): Promise<void> {
  const q = `from ${from}${where} | stats ${cases.map((c, k) => `${c.call} as a${k}`).join(', ')}${keys.length ? ` by ${keys.map((k, i) => `${k.text} as k${i}`).join(', ')}` : ''}`;
  const data = await aggregate(q);
  assert.deepEqual(data.columns, [...keys.map((_, i) => `k${i}`), ...cases.map((_, k) => `a${k}`)]);
  const groups = statsGroups(pool, (e) => keys.map((k) => k.value(e)));
  assert.equal(data.rows.length, groups.length, `${q}: group count`);
  const failures: string[] = [];
  groups.forEach((g, r) => {
    const row = data.rows[r]!;
    assert.deepStrictEqual(row.slice(0, keys.length), g.key, `${q}: keys of row ${r}`);
    cases.forEach((c, k) => {
      const actual = row[keys.length + k];
      const expected = c.ref(g.items);
      const context = `${c.call} in group ${JSON.stringify(g.key)} (n=${g.items.length})`;
      try {
        if (expected === null || c.kind === 'exact') same(actual, expected, context);
        else if (c.kind === 'rate') close(actual, expected as number, 1e-6, context);
        else if (c.kind === 'dc') {
          if ((expected as number) <= 1024) assert.equal(actual, expected, `${context}: exact up to 1024 distinct values`);
          else close(actual, expected as number, 0.02, context);
        } else close(actual, expected as number, 0.01, context);
      } catch (error) {
        failures.push((error as Error).message.split('\n')[0]!);
      }
    });
  });
  assert.deepEqual(failures.slice(0, 10), [], `${failures.length} mismatches in ${q}`);
}

describe('golden: aggregates', function () {
  before(async function () {
    this.timeout(120_000);
    await golden();
  });

  it('every aggregate over all events, no keys (sketch sizes: percentiles and dc over ~1,800 values)', () =>
    checkStats('*', [...GENERAL, ...numericCases('ms')], [], EVENTS));

  it('every numeric aggregate of a field with negatives and zeros (delta), by index', () =>
    checkStats('*', numericCases('delta'), [{ text: 'index', value: (e) => e.index }], EVENTS));

  it('every aggregate by host', () =>
    checkStats('*', [...GENERAL, ...numericCases('bytes')], [{ text: 'host', value: (e) => e.host }], EVENTS));

  it('by two keys (a null key sorts last)', () =>
    checkStats(
      'web, app',
      [...GENERAL, ...numericCases('ms').slice(0, 12)],
      [
        { text: 'level', value: (e) => f(e, 'level') },
        { text: 'region', value: (e) => f(e, 'region') },
      ],
      inIndexes('web', 'app'),
    ));

  it('by bin(_time, 30m) and source', () =>
    checkStats(
      '*',
      [...GENERAL, ...numericCases('ms')],
      [
        { text: 'bin(_time, 30m)', value: (e) => new Date(Math.floor(e.timeMs / 1800_000) * 1800_000).toISOString() },
        { text: 'source', value: (e) => e.source },
      ],
      EVENTS,
    ));

  it('a mixed number/string field: numbers and numeric strings are numbers; values and dc keep the type', () =>
    checkStats(
      '*',
      [...numericCases('code'), { call: 'values(code)', kind: 'exact', ref: (g) => valuesOf(g, 'code') }],
      [{ text: 'region', value: (e) => f(e, 'region') }],
      EVENTS,
    ));

  it('booleans count as 1/0 in sum and avg; values lists false before true', () =>
    checkStats(
      '*',
      [
        { call: 'sum(cached)', kind: 'exact', ref: (g) => (numbers(g, 'cached').length ? sum(numbers(g, 'cached')) : null) },
        {
          call: 'avg(cached)',
          kind: 'exact',
          ref: (g) => (numbers(g, 'cached').length ? sum(numbers(g, 'cached')) / numbers(g, 'cached').length : null),
        },
        { call: 'values(cached)', kind: 'exact', ref: (g) => valuesOf(g, 'cached') },
        { call: 'count(cached)', kind: 'exact', ref: (g) => g.filter((e) => f(e, 'cached') !== null).length },
      ],
      [{ text: 'host', value: (e) => e.host }],
      EVENTS,
    ));

  it('aggregates of _time are times (ISO 8601); values() is capped at 100, smallest first', async () => {
    const rows = await table(
      'from * | stats min(_time) as lo, max(_time) as hi, first(_time) as f, latest(_time) as l, values(rid) as v, dc(rid) as d by index',
    );
    const groups = statsGroups(EVENTS, (e) => [e.index]);
    assert.equal(rows.length, groups.length);
    groups.forEach((g, r) => {
      const times = g.items.map((e) => e.timeMs).sort((a, b) => a - b);
      const row = rows[r]!;
      assert.equal(row.lo, new Date(times[0]!).toISOString());
      assert.equal(row.hi, new Date(times.at(-1)!).toISOString());
      assert.equal(row.f, new Date(times[0]!).toISOString());
      assert.equal(row.l, new Date(times.at(-1)!).toISOString());
      assert.equal(row.v, valuesOf(g.items, 'rid'));
      assert.equal(JSON.parse(row.v as string).length, 100);
      close(row.d, g.items.length, 0.02, `dc(rid) of ${g.key[0]}`);
    });
  });

  it('dc over ~2,000 distinct values stays within 2%', async () => {
    const rows = await table('from * | stats dc(rid) as d, dc(_raw) as r, dc(_time) as t, count() as n');
    close(rows[0]!.d, EVENTS.length, 0.02, 'dc(rid)');
    close(rows[0]!.r, new Set(EVENTS.map((e) => e.raw)).size, 0.02, 'dc(_raw)');
    close(rows[0]!.t, EVENTS.length, 0.02, 'dc(_time)');
    assert.equal(rows[0]!.n, EVENTS.length);
  });

  it('rate() is events per second over the request range', async () => {
    const rows = await table('from web | stats rate() as r, count() as n');
    assert.equal(rows[0]!.n, inIndexes('web').length);
    close(rows[0]!.r, inIndexes('web').length / RANGE_SECONDS, 1e-9, 'rate()');
  });

  it('aggregates over an expression and after extend', async () => {
    const rows = await table('from web | extend kb = bytes / 1024 | stats sum(kb) as s, avg(bytes * 2) as a, max(len(user)) as m');
    const bytes = numbers(inIndexes('web'), 'bytes');
    close(rows[0]!.s, sum(bytes.map((b) => b / 1024)), 1e-9, 'sum(kb)');
    close(rows[0]!.a, sum(bytes.map((b) => b * 2)) / bytes.length, 1e-9, 'avg(bytes * 2)');
    assert.equal(
      rows[0]!.m,
      Math.max(
        ...inIndexes('web')
          .filter((e) => e.fields.user !== undefined)
          .map((e) => [...(e.fields.user as string)].length),
      ),
    );
  });

  it('first/last/earliest/latest still go by event time after keep, drop or rename of _time', async () => {
    const main = inIndexes('main');
    const withMs = present(main, 'ms');
    const withUser = present(main, 'user');
    for (const q of [
      'from main | keep ms, user | stats first(ms) as f, last(ms) as l, earliest(user) as e, latest(user) as t',
      'from main | drop _time | stats first(ms) as f, last(ms) as l, earliest(user) as e, latest(user) as t',
      'from main | rename _time as when2 | stats first(ms) as f, last(ms) as l, earliest(user) as e, latest(user) as t',
    ]) {
      const rows = await table(q);
      assert.deepEqual(
        rows,
        [{ f: withMs[0]!.fields.ms, l: withMs.at(-1)!.fields.ms, e: withUser[0]!.fields.user, t: withUser.at(-1)!.fields.user }],
        q,
      );
    }
  });

  it('stats over no rows: one row with count 0 (no keys), no rows with keys', async () => {
    const empty = await aggregate('from * | where ms > 1000000 | stats count() as n, sum(ms) as s, avg(ms) as a');
    assert.deepEqual(empty.rows, [[0, null, null]]);
    const keyed = await aggregate('from * | where ms > 1000000 | stats count() by host');
    assert.deepEqual(keyed.rows, []);
  });

  describe('column names', () => {
    it('default names: function_field, count, p95_ms for percentile, repeats get _2, _3', async () => {
      const data = await aggregate(
        'from * | stats count(), avg(ms), percentile(ms, 95), count(), max(ms), max(ms), count(user), countif(level = "error"), p99(ms), percentile(ms, 99.9), sum(bytes * 2), max(ms) by host, bin(_time, 1h), lower(region)',
      );
      assert.deepEqual(data.columns, [
        'host',
        '_time',
        'lower_region',
        'count',
        'avg_ms',
        'p95_ms',
        'count_2',
        'max_ms',
        'max_ms_2',
        'count_user',
        'countif',
        'p99_ms',
        'p99_9_ms',
        'sum',
        'max_ms_3',
      ]);
      const groups = statsGroups(EVENTS, (e) => [
        e.host,
        new Date(Math.floor(e.timeMs / 3600_000) * 3600_000).toISOString(),
        (e.fields.region as string).toLowerCase(),
      ]);
      assert.equal(data.rows.length, groups.length);
      groups.forEach((g, r) => {
        const row = data.rows[r]!;
        assert.deepEqual(row.slice(0, 3), g.key);
        assert.equal(row[3], g.items.length);
        assert.equal(row[6], g.items.length);
        same(row[7], minMax(g.items, 'ms', true));
        assert.equal(row[8], row[7]);
        assert.equal(row[14], row[7]);
      });
    });

    it('an alias replaces the default name; `sort count() desc` after stats refers to the column', async () => {
      const data = await aggregate('from * | stats count(), avg(ms) as mean by host | sort count() desc');
      assert.deepEqual(data.columns, ['host', 'count', 'mean']);
      const groups = statsGroups(EVENTS, (e) => [e.host]);
      // sort is stable: ties keep the key order of stats
      const expected = groups
        .map((g) => [g.key[0]!, g.items.length, sum(numbers(g.items, 'ms')) / numbers(g.items, 'ms').length] as V[])
        .sort((a, b) => (b[1] as number) - (a[1] as number));
      assert.equal(data.rows.length, expected.length);
      data.rows.forEach((row, r) => {
        assert.deepEqual(row.slice(0, 2), expected[r]!.slice(0, 2));
        close(row[2], expected[r]![2] as number, 1e-9, 'mean');
      });
    });

    it('avg(ms) after stats refers to its column in where and extend', async () => {
      const rows = await table('from * | stats avg(ms), count() by source | where avg(ms) > 0 | extend per = avg(ms) / count()');
      const groups = statsGroups(EVENTS, (e) => [e.source]);
      assert.equal(rows.length, groups.length);
      rows.forEach((row, r) => {
        const avg = sum(numbers(groups[r]!.items, 'ms')) / numbers(groups[r]!.items, 'ms').length;
        close(row.avg_ms, avg, 1e-9, 'avg_ms');
        close(row.per, avg / groups[r]!.items.length, 1e-9, 'per');
      });
    });

    it('an aggregate that is not a column of the preceding stats is E010', async () => {
      await invalid('from * | stats count() by host | sort avg(ms)', 'E010');
      await invalid('from * | where count() > 1', 'E010');
    });
  });
});

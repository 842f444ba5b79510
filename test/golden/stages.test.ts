/**
 * Golden tests, stages: from (globs, several indexes), where, extend (chained), keep (order, globs),
 * drop, rename, head, tail, dedup, stats (structure), top (with and without by). Expected answers
 * are computed from the dataset in plain JS.
 */
import { strict as assert } from 'assert';
import { EVENTS, get, inIndexes, keyOrder, newestFirst, num, stored, statsGroups, type GoldenEvent, type Row, type V } from './dataset';
import { aggregate, byRid, events, golden, rids, same, sameRows, table } from './server';

const expectRids = (list: readonly GoldenEvent[]): string[] => list.map((e) => e.fields.rid as string);

describe('golden: stages', function () {
  before(async function () {
    this.timeout(120_000);
    await golden();
  });

  describe('from', () => {
    it('one index returns exactly its events, newest first, with every stored field', async () => {
      const result = await events('from web');
      const expected = newestFirst(inIndexes('web'));
      assert.equal(result.total, expected.length);
      assert.equal(result.has_more, false);
      assert.deepEqual(rids(result.events), expectRids(expected));
      result.events.forEach((row, k) => assert.deepStrictEqual(row, stored(expected[k]!), `event ${k}`));
    });

    for (const [q, indexes] of [
      ['from *', ['web', 'app', 'main']],
      ['from web, app', ['web', 'app']],
      ['from w*', ['web']],
      ['from ma?n, app', ['main', 'app']],
      ['from *p*', ['app']],
      ['from web, w*, web', ['web']],
      ['from nope', []],
      ['from nope*, main', ['main']],
    ] as const) {
      it(`${q} covers ${JSON.stringify(indexes)}`, async () => {
        const result = await events(q);
        const expected = newestFirst(inIndexes(...indexes));
        assert.equal(result.total, expected.length);
        assert.deepEqual(rids(result.events), expectRids(expected));
      });
    }

    it('index is a field: stats count() by index', async () => {
      const rows = (await aggregate('from * | stats count() by index')).rows;
      const expected = statsGroups(EVENTS, (e) => [e.index]).map((g) => [g.key[0]!, g.items.length]);
      assert.deepEqual(rows, expected);
    });
  });

  describe('where', () => {
    it('keeps the rows where the expression is true (nulls false)', async () => {
      const result = await events('from * | where ms > 500 and level != "debug"');
      const expected = newestFirst(
        EVENTS.filter((e) => {
          const ms = get(e, 'ms');
          const level = get(e, 'level');
          return ms !== null && (ms as number) > 500 && level !== null && level !== 'debug';
        }),
      );
      assert.deepEqual(rids(result.events), expectRids(expected));
    });

    it('a leading number comparison (run on the stored integer bytes) keeps what comparing the values keeps', async () => {
      // status is an integer field of web and api events, null elsewhere: its blocks are packed
      // integers with and without nulls, which the scan compares without decoding.
      const cases: [string, number, (s: number) => boolean][] = [
        ['>=', 500, (s) => s >= 500],
        ['>', 404, (s) => s > 404],
        ['<', 300, (s) => s < 300],
        ['<=', 200, (s) => s <= 200],
        ['=', 404, (s) => s === 404],
        ['!=', 200, (s) => s !== 200],
        ['>=', 403.5, (s) => s >= 403.5],
        ['<', -1, (s) => s < -1],
        ['=', 1e20, (s) => s === 1e20],
      ];
      for (const [op, constant, test] of cases) {
        const expected = EVENTS.filter((e) => {
          const status = get(e, 'status');
          return typeof status === 'number' && test(status);
        });
        const counted = await aggregate(`from * | where status ${op} ${constant} | stats count() as n`);
        assert.deepEqual(counted.rows, [[expected.length]], `where status ${op} ${constant}`);
        if (op === '!=') {
          const listed = await events(`from * | where status != ${constant} | keep rid, status`);
          assert.deepEqual(rids(listed.events), expectRids(newestFirst(expected)));
        }
      }
    });

    it('two where stages in a row are an and', async () => {
      const a = await events('from app | where source = "api" | where status >= 400');
      const expected = newestFirst(inIndexes('app').filter((e) => e.source === 'api' && (e.fields.status as number) >= 400));
      assert.deepEqual(rids(a.events), expectRids(expected));
    });
  });

  describe('extend', () => {
    it('chained assignments see earlier ones; a later one can overwrite a stored field', async () => {
      const result = await events(
        'from * | extend a = ms * 2, b = a + 1, c = if(b > 100, "big", "small"), ms = b - a | keep rid, a, b, c, ms',
      );
      const got = byRid(result.events);
      assert.equal(got.size, EVENTS.length);
      for (const e of EVENTS) {
        const ms = get(e, 'ms') as number | null;
        const a = ms === null ? null : ms * 2;
        const b = a === null ? null : a + 1;
        const c = b !== null && b > 100 ? 'big' : 'small';
        const newMs = a === null || b === null ? null : b - a;
        const row = got.get(e.fields.rid as string)!;
        same(row.a ?? null, a, `a of ${e.fields.rid}`);
        same(row.b ?? null, b, `b of ${e.fields.rid}`);
        assert.equal(row.c, c, `c of ${e.fields.rid}`);
        same(row.ms ?? null, newMs, `ms of ${e.fields.rid}`);
      }
    });

    it('a second extend stage sees the first; where filters on an extended field', async () => {
      const result = await events('from web | extend kb = bytes / 1000 | extend big = kb >= 25 | where big | keep rid, kb, _time');
      const expected = newestFirst(inIndexes('web').filter((e) => e.fields.bytes !== undefined && (e.fields.bytes as number) / 1000 >= 25));
      assert.deepEqual(rids(result.events), expectRids(expected));
      result.events.forEach((row, k) => same(row.kb, (expected[k]!.fields.bytes as number) / 1000, 'kb'));
    });
  });

  describe('keep, drop, rename', () => {
    it('keep returns only the named fields, in the order written (absent fields as null)', async () => {
      const result = await events('from main | keep user, rid, _time, no_such_field, ms', { limit: 50 });
      const expected = newestFirst(inIndexes('main')).slice(0, 50);
      result.events.forEach((row, k) => {
        const e = expected[k]!;
        assert.deepEqual(Object.keys(row), ['user', 'rid', '_time', 'no_such_field', 'ms'], 'field order');
        assert.deepStrictEqual(row, { user: get(e, 'user'), rid: e.fields.rid, _time: e.iso, no_such_field: null, ms: get(e, 'ms') });
      });
    });

    it('keep without _time keeps the newest-first order (events, paging and head)', async () => {
      const expected = expectRids(newestFirst(inIndexes('app')));
      const all = await events('from app | keep rid');
      assert.deepEqual(rids(all.events), expected, 'keep rid: order');
      const page = await events('from app | keep rid', { limit: 50, offset: 100 });
      assert.deepEqual(rids(page.events), expected.slice(100, 150), 'keep rid: a page');
      const head = await events('from app | keep rid, user | head 5');
      assert.deepEqual(rids(head.events), expected.slice(0, 5), 'keep then head');
      const dropped = await events('from app | drop _time | head 5');
      assert.deepEqual(rids(dropped.events), expected.slice(0, 5), 'drop _time then head');
      const renamed = await events('from app | rename _time as t | head 5');
      assert.deepEqual(rids(renamed.events), expected.slice(0, 5), 'rename _time then head');
    });

    it('keep with globs keeps every matching field', async () => {
      const result = await events('from web | keep r*, _t*, stat?s', { limit: 100 });
      const expected = newestFirst(inIndexes('web')).slice(0, 100);
      result.events.forEach((row, k) => {
        const e = expected[k]!;
        const want: Row = {
          _time: e.iso,
          rid: e.fields.rid as string,
          region: e.fields.region as string,
          status: e.fields.status as number,
        };
        if (e.fields.ratio !== undefined) want.ratio = e.fields.ratio;
        const present = Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null));
        assert.deepStrictEqual(present, want);
        assert.deepEqual(
          Object.keys(row)
            .filter((n) => !n.startsWith('_t'))
            .every((n) => n.startsWith('r') || n === 'status'),
          true,
        );
      });
    });

    it('drop removes named and globbed fields', async () => {
      const result = await events('from app | drop _raw, p*, ms, t*', { limit: 200 });
      const expected = newestFirst(inIndexes('app')).slice(0, 200);
      result.events.forEach((row, k) => {
        const want = stored(expected[k]!);
        for (const name of Object.keys(want))
          if (name === '_raw' || name === 'ms' || name.startsWith('p') || name.startsWith('t')) delete want[name];
        assert.deepStrictEqual(row, want);
      });
    });

    it('rename renames several fields; later stages use the new names', async () => {
      const result = await events(
        'from * | rename host as server, ms as latency | where latency > 900 | keep _time, rid, server, latency, host, ms',
      );
      const expected = newestFirst(EVENTS.filter((e) => (get(e, 'ms') as number | null) !== null && (e.fields.ms as number) > 900));
      assert.deepEqual(rids(result.events), expectRids(expected));
      result.events.forEach((row, k) => {
        const e = expected[k]!;
        assert.deepStrictEqual(row, { _time: e.iso, rid: e.fields.rid, server: e.host, latency: e.fields.ms, host: null, ms: null });
      });
    });
  });

  describe('head, tail, dedup', () => {
    it('head N returns the newest N events', async () => {
      const result = await events('from * | head 7');
      assert.deepEqual(rids(result.events), expectRids(newestFirst(EVENTS).slice(0, 7)));
    });

    it('head without a count returns 10', async () => {
      const result = await events('from app | head');
      assert.deepEqual(rids(result.events), expectRids(newestFirst(inIndexes('app')).slice(0, 10)));
    });

    it('head after a filter returns the newest matches', async () => {
      const result = await events('from * | where level = "error" and user is not null | head 12');
      const expected = newestFirst(EVENTS.filter((e) => e.fields.level === 'error' && e.fields.user !== undefined)).slice(0, 12);
      assert.deepEqual(rids(result.events), expectRids(expected));
      assert.equal(result.total, 12);
    });

    it('head larger than the input returns all of it', async () => {
      const result = await events('from * | search zanzibar | head 100');
      assert.equal(result.events.length, 5);
    });

    it('tail N returns the last N rows of the current (newest first) order', async () => {
      const result = await events('from web | tail 6');
      const ordered = newestFirst(inIndexes('web'));
      assert.deepEqual(rids(result.events), expectRids(ordered.slice(ordered.length - 6)));
    });

    it('tail without a count returns 10; tail after sort uses the sorted order', async () => {
      const a = await events('from main | tail');
      const ordered = newestFirst(inIndexes('main'));
      assert.deepEqual(rids(a.events), expectRids(ordered.slice(ordered.length - 10)));
      const b = await events('from web | sort bytes desc | tail 4');
      // nulls last in both directions; ties keep the newest-first order
      const withBytes = newestFirst(inIndexes('web'))
        .filter((e) => e.fields.bytes !== undefined)
        .sort((x, y) => (y.fields.bytes as number) - (x.fields.bytes as number));
      const nulls = newestFirst(inIndexes('web')).filter((e) => e.fields.bytes === undefined);
      const expected = [...withBytes, ...nulls];
      assert.deepEqual(rids(b.events), expectRids(expected.slice(expected.length - 4)));
    });

    it('dedup keeps the first row (newest) of each value', async () => {
      const result = await events('from * | dedup host');
      const seen = new Set<string>();
      const expected = newestFirst(EVENTS).filter((e) => (seen.has(e.host) ? false : (seen.add(e.host), true)));
      assert.deepEqual(rids(result.events), expectRids(expected));
    });

    it('dedup on two fields, a null is a value of its own', async () => {
      const result = await events('from * | dedup level, region');
      const seen = new Set<string>();
      const expected = newestFirst(EVENTS).filter((e) => {
        const key = JSON.stringify([get(e, 'level'), get(e, 'region')]);
        return seen.has(key) ? false : (seen.add(key), true);
      });
      assert.deepEqual(rids(result.events), expectRids(expected));
    });

    it('dedup after sort keeps the first in sorted order', async () => {
      const result = await events('from web | where ms is not null | sort ms desc | dedup host | keep host, ms, rid');
      const sorted = newestFirst(inIndexes('web'))
        .filter((e) => e.fields.ms !== undefined)
        .sort((x, y) => (y.fields.ms as number) - (x.fields.ms as number));
      const seen = new Set<string>();
      const expected = sorted.filter((e) => (seen.has(e.host) ? false : (seen.add(e.host), true)));
      assert.deepEqual(rids(result.events), expectRids(expected));
    });
  });

  describe('stats (structure) and top', () => {
    it('stats with several aggregates and keys: keys first, then aggregates, ordered by keys', async () => {
      const data = await aggregate('from * | stats count() as n, max(bytes) as mb, countif(level = "error") as errors by index, region');
      assert.deepEqual(data.columns, ['index', 'region', 'n', 'mb', 'errors']);
      const expected = statsGroups(EVENTS, (e) => [e.index, e.fields.region as string]).map((g) => [
        g.key[0]!,
        g.key[1]!,
        g.items.length,
        Math.max(...g.items.filter((e) => e.fields.bytes !== undefined).map((e) => e.fields.bytes as number)),
        g.items.filter((e) => e.fields.level === 'error').length,
      ]);
      sameRows(data.rows, expected);
      assert.equal(data.total_rows, expected.length);
    });

    it('stats by keys only lists the distinct keys (a null key sorts last)', async () => {
      const data = await aggregate('from * | stats by level');
      assert.deepEqual(data.columns, ['level']);
      assert.deepEqual(data.rows, [['debug'], ['error'], ['info'], ['warn'], [null]]);
    });

    it('stats by bin(_time, 5m): the column is _time, buckets chronological as ISO strings', async () => {
      const data = await aggregate('from web | stats count(), sum(bytes) by bin(_time, 5m)');
      assert.deepEqual(data.columns, ['_time', 'count', 'sum_bytes']);
      const expected = statsGroups(inIndexes('web'), (e) => [new Date(Math.floor(e.timeMs / 300_000) * 300_000).toISOString()]).map((g) => {
        const bytes = g.items.filter((e) => e.fields.bytes !== undefined).map((e) => e.fields.bytes as number);
        return [g.key[0]!, g.items.length, bytes.length === 0 ? null : bytes.reduce((s, x) => s + x, 0)];
      });
      sameRows(data.rows, expected);
    });

    it('stats by bin(_time, 1h) as t, host', async () => {
      const data = await aggregate('from app | stats count() by bin(_time, 1h) as t, host');
      assert.deepEqual(data.columns, ['t', 'host', 'count']);
      const expected = statsGroups(inIndexes('app'), (e) => [
        new Date(Math.floor(e.timeMs / 3600_000) * 3600_000).toISOString(),
        e.host,
      ]).map((g) => [g.key[0]!, g.key[1]!, g.items.length]);
      assert.deepEqual(data.rows, expected);
    });

    it('stats after stats, and where/extend after stats on its columns', async () => {
      const rows = await table(
        'from * | stats count() as n by host | where n > 150 | extend double = n * 2 | stats sum(double) as s, count() as hosts',
      );
      const perHost = statsGroups(EVENTS, (e) => [e.host])
        .map((g) => g.items.length)
        .filter((n) => n > 150);
      assert.deepEqual(rows, [{ s: perHost.reduce((a, n) => a + 2 * n, 0), hosts: perHost.length }]);
    });

    function topRows(list: readonly GoldenEvent[], fields: string[], n: number): V[][] {
      const groups = statsGroups(list, (e) => fields.map((f) => get(e, f)));
      const total = list.length;
      return groups
        .sort(
          (a, b) =>
            b.items.length - a.items.length ||
            (() => {
              for (let k = 0; k < fields.length; k++) {
                const o = keyOrder(a.key[k]!, b.key[k]!);
                if (o !== 0) return o;
              }
              return 0;
            })(),
        )
        .slice(0, n)
        .map((g) => [...g.key, g.items.length, (g.items.length / total) * 100]);
    }

    function assertTop(actual: V[][], expected: V[][], context: string): void {
      assert.equal(actual.length, expected.length, context);
      actual.forEach((row, r) => {
        assert.deepStrictEqual(row.slice(0, -1), expected[r]!.slice(0, -1), `${context} row ${r}`);
        // percent: compared to 4 decimals (the engine rounds it; a presentation value)
        assert.ok(
          Math.abs((row.at(-1) as number) - (expected[r]!.at(-1) as number)) <= 5e-5 + 1e-12,
          `${context} percent of row ${r}: ${row.at(-1)} vs ${expected[r]!.at(-1)}`,
        );
      });
    }

    it('top field: count desc, ties by value asc, with percent; default N is 10', async () => {
      const data = await aggregate('from * | top host');
      assert.deepEqual(data.columns, ['host', 'count', 'percent']);
      assertTop(data.rows, topRows(EVENTS, ['host'], 10), 'top host');
    });

    it('top N over two fields', async () => {
      const result = await aggregate('from web | top 5 host, status');
      assert.deepEqual(result.columns, ['host', 'status', 'count', 'percent']);
      assertTop(result.rows, topRows(inIndexes('web'), ['host', 'status'], 5), 'top 5 host, status');
    });

    it('top N by field ranks within each group (groups in key order), percent within the group', async () => {
      const data = await aggregate('from * | top 2 region by index');
      assert.deepEqual(data.columns, ['index', 'region', 'count', 'percent']);
      const expected: V[][] = [];
      for (const g of statsGroups(EVENTS, (e) => [e.index])) {
        for (const row of topRows(g.items, ['region'], 2)) expected.push([g.key[0]!, ...row]);
      }
      assertTop(data.rows, expected, 'top 2 region by index');
    });

    it('top ties are broken by value ascending', async () => {
      // level within each region: many close counts; check the tie rule over numbers too
      const data = await aggregate('from web | top 20 status');
      assertTop(data.rows, topRows(inIndexes('web'), ['status'], 20), 'top 20 status');
      for (let r = 1; r < data.rows.length; r++) {
        const [v0, c0] = data.rows[r - 1]!;
        const [v1, c1] = data.rows[r]!;
        assert.ok((c0 as number) > (c1 as number) || ((c0 as number) === (c1 as number) && (v0 as number) < (v1 as number)));
      }
    });

    it('count() after top names the count column', async () => {
      const rows = await table('from * | top 3 region | where count() > 0 | sort count() asc');
      const expected = topRows(EVENTS, ['region'], 3).sort((a, b) => (a[1] as number) - (b[1] as number));
      assert.deepEqual(
        rows.map((r) => [r.region, r.count]),
        expected.map((r) => [r[0], r[1]]),
      );
    });

    it('numbers in stats keys keep their type (a number and a numeric string are different keys)', async () => {
      const data = await aggregate('from * | where code in (17, "17") | stats count() by code');
      const expected = statsGroups(
        EVENTS.filter((e) => num(get(e, 'code')) === 17 && e.fields.code !== undefined),
        (e) => [get(e, 'code')],
      ).map((g) => [g.key[0]!, g.items.length]);
      assert.deepEqual(data.rows, expected);
      assert.ok(expected.length === 2, 'the dataset has both 17 and "17"');
    });
  });
});

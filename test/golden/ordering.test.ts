/**
 * Golden tests, order and paging: the default newest-first order, sort asc/desc over one and several
 * keys with nulls last (stable: ties keep the incoming order), sort by expressions and after stats,
 * head after sort, offset/limit/has_more/total on events and aggregate results, and `$variables`.
 */
import { strict as assert } from 'assert';
import { EVENTS, get, inIndexes, keyOrder, newestFirst, num, statsGroups, type GoldenEvent, type V } from './dataset';
import { postJson } from '../helpers/server';
import { aggregate, events, golden, invalid, post, rids } from './server';

type Key = { value: (e: GoldenEvent) => V; desc: boolean };

/** A stable sort of the newest-first events; nulls last in both directions. */
function sorted(list: readonly GoldenEvent[], keys: Key[], order: (a: V, b: V) => number = keyOrder): GoldenEvent[] {
  return newestFirst(list).sort((x, y) => {
    for (const key of keys) {
      const a = key.value(x);
      const b = key.value(y);
      if (a === null || b === null) {
        if (a === b) continue;
        return a === null ? 1 : -1;
      }
      const o = order(a, b);
      if (o !== 0) return key.desc ? -o : o;
    }
    return 0;
  });
}

const field = (name: string, desc = false): Key => ({ value: (e) => get(e, name), desc });
const ridsOf = (list: GoldenEvent[]): string[] => list.map((e) => e.fields.rid as string);

describe('golden: order and paging', function () {
  before(async function () {
    this.timeout(120_000);
    await golden();
  });

  describe('sort', () => {
    it('the default order is newest first; sort _time asc is oldest first', async () => {
      assert.deepEqual(rids((await events('from * | keep rid, _time')).events), ridsOf(newestFirst(EVENTS)));
      assert.deepEqual(rids((await events('from * | sort _time | keep rid, _time')).events), ridsOf([...EVENTS]));
      assert.deepEqual(rids((await events('from * | sort _time desc | keep rid, _time')).events), ridsOf(newestFirst(EVENTS)));
    });

    it('sort one numeric key asc and desc, nulls last in both', async () => {
      assert.deepEqual(rids((await events('from * | sort ms | keep rid, _time')).events), ridsOf(sorted(EVENTS, [field('ms')])));
      assert.deepEqual(rids((await events('from * | sort ms desc | keep rid, _time')).events), ridsOf(sorted(EVENTS, [field('ms', true)])));
    });

    it('sort several keys, strings and numbers, mixed directions', async () => {
      const result = await events('from * | sort level asc, region desc, bytes desc | keep rid, _time');
      assert.deepEqual(rids(result.events), ridsOf(sorted(EVENTS, [field('level'), field('region', true), field('bytes', true)])));
    });

    it('sort by expressions (ties keep the newest-first order)', async () => {
      const result = await events('from app | sort len(user) desc, lower(user) asc | keep rid, _time');
      const len = (e: GoldenEvent): V => (get(e, 'user') === null ? null : [...(get(e, 'user') as string)].length);
      const lower = (e: GoldenEvent): V => (get(e, 'user') === null ? null : (get(e, 'user') as string).toLowerCase());
      assert.deepEqual(
        rids(result.events),
        ridsOf(
          sorted(inIndexes('app'), [
            { value: len, desc: true },
            { value: lower, desc: false },
          ]),
        ),
      );
    });

    it('sort by unicode strings uses code-unit order', async () => {
      const result = await events('from * | sort user desc | keep rid, _time');
      assert.deepEqual(rids(result.events), ridsOf(sorted(EVENTS, [field('user', true)])));
    });

    it('sort by a boolean field: false before true', async () => {
      const result = await events('from * | sort cached, _time | keep rid, _time');
      assert.deepEqual(rids(result.events), ridsOf(sorted(EVENTS, [field('cached'), { value: (e) => e.timeMs, desc: false }])));
    });

    it('sort by tonumber() of a mixed field', async () => {
      const result = await events('from * | sort tonumber(code) desc | keep rid, _time');
      assert.deepEqual(rids(result.events), ridsOf(sorted(EVENTS, [{ value: (e) => num(get(e, 'code')), desc: true }])));
    });

    it('sort by a mixed number/string field compares numeric strings as numbers', async () => {
      // docs/language.md: "Comparing a number with a string that reads as a number compares numbers."
      const numericFirst = (a: V, b: V): number => {
        const x = num(a);
        const y = num(b);
        if (x !== null && y !== null) return Math.sign(x - y);
        if (x !== null) return -1;
        if (y !== null) return 1;
        return keyOrder(a, b);
      };
      const result = await events('from * | sort code | keep rid, code, _time');
      const expected = sorted(EVENTS, [field('code')], numericFirst);
      const got = result.events.map((row) => row.code);
      const want = expected.map((e) => get(e, 'code'));
      const firstDiff = got.findIndex((v, k) => JSON.stringify(v) !== JSON.stringify(want[k]));
      assert.equal(
        firstDiff,
        -1,
        `first difference at row ${firstDiff}: got ${JSON.stringify(got.slice(firstDiff, firstDiff + 5))}, expected ${JSON.stringify(want.slice(firstDiff, firstDiff + 5))}`,
      );
    });

    it('head after sort takes the first rows of the sorted order', async () => {
      const result = await events('from web | sort bytes desc | head 5 | keep rid, bytes, _time');
      assert.deepEqual(rids(result.events), ridsOf(sorted(inIndexes('web'), [field('bytes', true)]).slice(0, 5)));
      assert.equal(result.total, 5);
    });

    it('sort after stats orders the aggregate rows (count() names its column)', async () => {
      const data = await aggregate('from * | stats count() by host | sort count() desc, host desc');
      const expected = statsGroups(EVENTS, (e) => [e.host])
        .map((g) => [g.key[0]!, g.items.length])
        .sort((a, b) => (b[1] as number) - (a[1] as number) || keyOrder(b[0]!, a[0]!));
      assert.deepEqual(data.rows, expected);
    });

    it('stats rows are ordered by their keys (numbers before strings, nulls last)', async () => {
      const data = await aggregate('from web | stats count() by status, user');
      const expected = statsGroups(inIndexes('web'), (e) => [get(e, 'status'), get(e, 'user')]).map((g) => [...g.key, g.items.length]);
      assert.deepEqual(data.rows, expected);
    });
  });

  describe('offset, limit, has_more, total', () => {
    it('events: pages of 300 cover the newest-first list exactly', async () => {
      const all = ridsOf(newestFirst(EVENTS));
      const seen: string[] = [];
      for (let offset = 0; offset < all.length + 300; offset += 300) {
        const page = await events('from * | keep rid, _time', { limit: 300, offset });
        assert.equal(page.total, all.length);
        assert.equal(page.has_more, offset + 300 < all.length, `has_more at offset ${offset}`);
        seen.push(...rids(page.events));
      }
      assert.deepEqual(seen, all);
    });

    it('events: paging a filtered, sorted result', async () => {
      const expected = ridsOf(
        sorted(
          EVENTS.filter((e) => get(e, 'level') === 'warn'),
          [field('ms', true)],
        ),
      );
      const page = await events('from * | where level = "warn" | sort ms desc | keep rid, _time', { limit: 25, offset: 50 });
      assert.deepEqual(rids(page.events), expected.slice(50, 75));
      assert.equal(page.total, expected.length);
      assert.equal(page.has_more, true);
      const last = await events('from * | where level = "warn" | sort ms desc | keep rid, _time', {
        limit: 25,
        offset: expected.length - 10,
      });
      assert.deepEqual(rids(last.events), expected.slice(-10));
      assert.equal(last.has_more, false);
    });

    it('events: an offset past the end gives no events; limit 0 gives none but has_more', async () => {
      const past = await events('from web', { limit: 10, offset: 5000 });
      assert.deepEqual(past.events, []);
      assert.equal(past.has_more, false);
      assert.equal(past.total, inIndexes('web').length);
      const zero = await events('from web', { limit: 0 });
      assert.deepEqual(zero.events, []);
      assert.equal(zero.has_more, true);
    });

    it('events: the default limit is query.default_result_limit (1000)', async () => {
      const { server } = await golden();
      const answer = await postJson(`${server.api}/query`, {
        q: 'from * | keep rid, _time',
        from: new Date(EVENTS[0]!.timeMs - 1000).toISOString(),
        to: new Date(EVENTS.at(-1)!.timeMs + 1000).toISOString(),
      });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.data.events.length, 1000);
      assert.equal(answer.body.data.total, EVENTS.length);
      assert.equal(answer.body.data.has_more, true);
      assert.deepEqual(rids(answer.body.data.events), ridsOf(newestFirst(EVENTS)).slice(0, 1000));
    });

    it('aggregates: pages of rows in key order with total_rows and has_more', async () => {
      const expected = statsGroups(EVENTS, (e) => [new Date(Math.floor(e.timeMs / 60_000) * 60_000).toISOString()]).map((g) => [
        g.key[0]!,
        g.items.length,
      ]);
      const rows: V[][] = [];
      for (let offset = 0; offset < expected.length; offset += 64) {
        const page = await aggregate('from * | stats count() by bin(_time, 1m)', { limit: 64, offset });
        assert.equal(page.total_rows, expected.length);
        assert.equal(page.has_more, offset + 64 < expected.length);
        rows.push(...page.rows);
      }
      assert.deepEqual(rows, expected);
      const past = await aggregate('from * | stats count() by bin(_time, 1m)', { offset: 10_000 });
      assert.deepEqual(past.rows, []);
      assert.equal(past.has_more, false);
    });

    it('the request time range bounds the events: [from, to), from inclusive, to exclusive', async () => {
      const a = EVENTS[300]!;
      const b = EVENTS[400]!;
      const result = await events('from * | keep rid, _time', { from: a.iso, to: b.iso });
      assert.deepEqual(rids(result.events), ridsOf(newestFirst(EVENTS.slice(300, 400))));
    });
  });

  describe('$variables', () => {
    it('are substituted as string literals (a numeric string compares as a number)', async () => {
      const result = await events('from * | where host = $h and status >= ${s} | keep rid, _time', { variables: { h: 'web-2', s: 500 } });
      const expected = newestFirst(EVENTS.filter((e) => e.host === 'web-2' && (e.fields.status as number) >= 500));
      assert.deepEqual(rids(result.events), ridsOf(expected));
      assert.ok(expected.length > 0);
    });

    it('values with quotes and unicode are escaped; search uses them as quoted values', async () => {
      const a = await events('from * | where user = $u | keep rid, _time', { variables: { u: 'anne marie' } });
      assert.deepEqual(rids(a.events), ridsOf(newestFirst(EVENTS.filter((e) => e.fields.user === 'anne marie'))));
      const b = await events('from * | where user = $u | keep rid, _time', { variables: { u: 'a"b\\c' } });
      assert.deepEqual(b.events, []);
      const c = await events('from * | search user=$u | keep rid, _time', { variables: { u: 'Zoë' } });
      assert.deepEqual(rids(c.events), ridsOf(newestFirst(EVENTS.filter((e) => e.fields.user === 'Zoë'))));
    });

    it('inside a string literal $name is text; an unknown variable is E014', async () => {
      const a = await events('from * | where user = "$u" | keep rid, _time', { variables: { u: 'Bob' } });
      assert.deepEqual(a.events, []);
      await invalid('from * | where host = $nope', 'E014', { variables: { h: 'x' } });
    });

    it('a variable in stats and sort', async () => {
      const data = await aggregate('from * | where region = $r | stats count() by level | sort count() desc', {
        variables: { r: 'eu-west' },
      });
      const expected = statsGroups(
        EVENTS.filter((e) => e.fields.region === 'eu-west'),
        (e) => [get(e, 'level')],
      )
        .map((g) => [g.key[0]!, g.items.length])
        .sort((a, b) => (b[1] as number) - (a[1] as number));
      assert.deepEqual(data.rows, expected);
    });
  });

  it('the response envelope of an events result', async () => {
    const answer = await post('from main | head 3');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.meta.language, 'native');
    assert.match(answer.body.meta.query_id, /^qry_/);
    assert.deepEqual(Object.keys(answer.body.data).sort(), ['events', 'has_more', 'total', 'type']);
    assert.deepEqual(Object.keys(answer.body.data.events[0]).slice(0, 5), ['_time', '_raw', 'index', 'source', 'host']);
  });
});

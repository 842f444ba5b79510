/**
 * Golden tests, operators: comparisons (= == != < <= > >=, numbers against numeric strings), =~ !~,
 * in / not in, like / not like, has / not has, is null / is not null, arithmetic (+ - * / % with
 * strings, nulls and division by zero), unary minus, precedence of and/or/not, `_time` against ISO
 * strings. Each expected answer is computed over the dataset in plain JS with the documented rules.
 */
import { strict as assert } from 'assert';
import { compare, EVENTS, get, hasPhrase, newestFirst, numericString, text, type GoldenEvent, type V } from './dataset';
import { byRid, events, golden, rids, same } from './server';

/** Three-valued truth: true, false or null (unknown). */
type T = boolean | null;
const and = (...xs: T[]): T => (xs.includes(false) ? false : xs.includes(null) ? null : true);
const or = (...xs: T[]): T => (xs.includes(true) ? true : xs.includes(null) ? null : false);
const not = (x: T): T => (x === null ? null : !x);
const cmp = (a: V, op: string, b: V): T => {
  const o = compare(a, b);
  if (Number.isNaN(o)) return null;
  switch (op) {
    case '=':
      return o === 0;
    case '!=':
      return o !== 0;
    case '<':
      return o < 0;
    case '<=':
      return o <= 0;
    case '>':
      return o > 0;
    default:
      return o >= 0;
  }
};

async function checkWhere(condition: string, predicate: (e: GoldenEvent) => T, from = '*', allowEmpty = false): Promise<void> {
  const result = await events(`from ${from} | where ${condition} | keep rid, _time`);
  const pool =
    from === '*'
      ? EVENTS
      : EVENTS.filter((e) =>
          from
            .split(',')
            .map((s) => s.trim())
            .includes(e.index),
        );
  const expected = newestFirst(pool.filter((e) => predicate(e) === true)).map((e) => e.fields.rid);
  assert.deepEqual(rids(result.events), expected, `where ${condition}: ${result.events.length} rows, expected ${expected.length}`);
  assert.ok(expected.length > 0 || allowEmpty, `where ${condition}: the dataset should have matches`);
}

/** An extend over every event, compared per event with `expected` (numbers within 1e-9). */
async function checkExtend(expr: string, expected: (e: GoldenEvent) => V): Promise<void> {
  const result = await events(`from * | extend x = ${expr} | keep rid, x`);
  const got = byRid(result.events);
  assert.equal(got.size, EVENTS.length);
  for (const e of EVENTS)
    same(got.get(e.fields.rid as string)!.x ?? null, expected(e), `${expr} for ${e.fields.rid} (${JSON.stringify(e.fields)})`);
}

const f = (e: GoldenEvent, name: string): V => get(e, name);
/** A latency value that occurs in the dataset (for = and friends). */
const PIVOT = EVENTS.map((e) => e.fields.ms).filter((x): x is number => typeof x === 'number')[777]!;

describe('golden: operators', function () {
  before(async function () {
    this.timeout(120_000);
    await golden();
  });

  describe('comparisons', () => {
    for (const op of ['=', '==', '!=', '<', '<=', '>', '>='] as const) {
      it(`ms ${op} ${PIVOT} (numbers; nulls are false)`, () =>
        checkWhere(`ms ${op} ${PIVOT}`, (e) => cmp(f(e, 'ms'), op === '==' ? '=' : op, PIVOT)));
    }

    for (const op of ['=', '!=', '<', '>='] as const) {
      it(`status ${op} "404" (a number against a numeric string compares numbers)`, () =>
        checkWhere(`status ${op} "404"`, (e) => cmp(f(e, 'status'), op, '404')));
    }

    it('code = 17 matches the number 17 and the string "17" (mixed field)', () =>
      checkWhere('code = 17', (e) => cmp(f(e, 'code'), '=', 17)));

    it('code == "17" matches both forms too', () => checkWhere('code == "17"', (e) => cmp(f(e, 'code'), '=', '17')));

    it('code >= 50 on the numeric values of a mixed field', () =>
      checkWhere('code >= 50 and not startswith(code, "E")', (e) =>
        and(cmp(f(e, 'code'), '>=', 50), not(text(f(e, 'code')) === null ? null : text(f(e, 'code'))!.startsWith('E'))),
      ));

    it('strings compare case-sensitively in code-unit order', () => checkWhere('user > "Zoë"', (e) => cmp(f(e, 'user'), '>', 'Zoë')));

    it('string equality is case-sensitive', async () => {
      await checkWhere('user = "bob"', () => false, '*', true);
      await checkWhere('user = "Bob"', (e) => f(e, 'user') === 'Bob');
    });

    it('field against field', () =>
      checkWhere('bytes > ms * 30', (e) => {
        const ms = f(e, 'ms');
        return cmp(f(e, 'bytes'), '>', ms === null ? null : (ms as number) * 30);
      }));

    it('booleans compare with booleans', () =>
      checkWhere('cached = true', (e) => (f(e, 'cached') === null ? null : f(e, 'cached') === true)));

    it('_time compares with ISO 8601 strings', () =>
      checkWhere(
        '_time >= "2026-03-02T09:00:00Z" and _time < "2026-03-02T09:30:00.000Z"',
        (e) => e.timeMs >= Date.UTC(2026, 2, 2, 9) && e.timeMs < Date.UTC(2026, 2, 2, 9, 30),
      ));

    it('_time compares with now() arithmetic', () => checkWhere('_time < now() - 1d', () => true));

    it('_time equals an exact ISO instant with milliseconds', async () => {
      const e = EVENTS[1234]!;
      await checkWhere(`_time = "${e.iso}"`, (x) => x === e);
    });
  });

  describe('regex, in, like, has, is null', () => {
    it('=~ matches anywhere (RE2), !~ is its negation (nulls false)', async () => {
      await checkWhere('user =~ "^[A-Z]"', (e) => (f(e, 'user') === null ? null : /^[A-Z]/.test(f(e, 'user') as string)));
      await checkWhere('user !~ "o"', (e) => (f(e, 'user') === null ? null : !/o/.test(f(e, 'user') as string)));
      await checkWhere('url =~ "%[0-9A-F]{2}%"', (e) => (f(e, 'url') === null ? null : /%[0-9A-F]{2}%/.test(f(e, 'url') as string)));
    });

    it('=~ on a number matches its text', () =>
      checkWhere('status =~ "^5"', (e) => (f(e, 'status') === null ? null : String(f(e, 'status')).startsWith('5'))));

    it('in with numbers and numeric strings', () =>
      checkWhere('status in (404, "500", 503)', (e) =>
        f(e, 'status') === null ? null : [404, 500, 503].includes(f(e, 'status') as number),
      ));

    it('in on a mixed field', () =>
      checkWhere('code in ("17", 18, "E5")', (e) => {
        const c = f(e, 'code');
        return c === null ? null : cmp(c, '=', '17') === true || cmp(c, '=', 18) === true || c === 'E5';
      }));

    it('not in (nulls stay unknown, so false)', () =>
      checkWhere('level not in ("info", "debug")', (e) =>
        f(e, 'level') === null ? null : !['info', 'debug'].includes(f(e, 'level') as string),
      ));

    it('in with strings', () => checkWhere('host in ("web-1", "db-2")', (e) => ['web-1', 'db-2'].includes(e.host)));

    for (const [pattern, re] of [
      ['J%', /^J/s],
      ['%e', /e$/s],
      ['%an%', /an/s],
      ['_o%', /^.o/s],
      ['alice', /^alice$/s],
      ['%_b%', /^.+b/s],
    ] as const) {
      it(`like "${pattern}" (case-sensitive, whole value)`, async () => {
        await checkWhere(`user like "${pattern}"`, (e) => (f(e, 'user') === null ? null : re.test(f(e, 'user') as string)));
      });
    }

    it('not like', () =>
      checkWhere('url not like "%page=1"', (e) => (f(e, 'url') === null ? null : !(f(e, 'url') as string).endsWith('page=1'))));

    it('like on a number reads its text', () =>
      checkWhere('status like "40_"', (e) => (f(e, 'status') === null ? null : /^40.$/.test(String(f(e, 'status'))))));

    it('has is a case-insensitive whole-token match', async () => {
      await checkWhere('_raw has "timeout"', (e) => hasPhrase(e.raw, 'timeout'));
      await checkWhere('_raw has "TIMEOUT"', (e) => hasPhrase(e.raw, 'timeout'));
      await checkWhere('_raw has "connection reset"', (e) => hasPhrase(e.raw, 'connection reset'));
      await checkWhere('_raw has "échec"', (e) => hasPhrase(e.raw, 'échec'));
    });

    it('has on another field', () => checkWhere('user has "MARIE"', (e) => f(e, 'user') === 'anne marie'));

    it('not has', () => checkWhere('_raw not has "timeout"', (e) => !hasPhrase(e.raw, 'timeout'), 'app'));

    it('is null / is not null', async () => {
      await checkWhere('ms is null', (e) => f(e, 'ms') === null);
      await checkWhere('user is not null and code is null', (e) => f(e, 'user') !== null && f(e, 'code') === null);
      await checkWhere('no_such_field is null', () => true, 'main');
    });
  });

  describe('arithmetic', () => {
    it('+ - * / % on numbers', async () => {
      await checkExtend('ms + bytes', (e) =>
        f(e, 'ms') === null || f(e, 'bytes') === null ? null : (f(e, 'ms') as number) + (f(e, 'bytes') as number),
      );
      await checkExtend('bytes - ms', (e) =>
        f(e, 'ms') === null || f(e, 'bytes') === null ? null : (f(e, 'bytes') as number) - (f(e, 'ms') as number),
      );
      await checkExtend('ms * 3', (e) => (f(e, 'ms') === null ? null : (f(e, 'ms') as number) * 3));
      await checkExtend('bytes / 7', (e) => (f(e, 'bytes') === null ? null : (f(e, 'bytes') as number) / 7));
      await checkExtend('bytes % 7', (e) => (f(e, 'bytes') === null ? null : (f(e, 'bytes') as number) % 7));
      await checkExtend('delta % 3', (e) => (f(e, 'delta') === null ? null : (f(e, 'delta') as number) % 3));
    });

    it('numeric strings are numbers in - * / %', async () => {
      const asNumber = (v: V): number | null =>
        typeof v === 'number' ? v : typeof v === 'string' && !Number.isNaN(numericString(v)) ? numericString(v) : null;
      await checkExtend('code * 2', (e) => (asNumber(f(e, 'code')) === null ? null : asNumber(f(e, 'code'))! * 2));
      await checkExtend('code - 1', (e) => (asNumber(f(e, 'code')) === null ? null : asNumber(f(e, 'code'))! - 1));
    });

    it('+ concatenates when either side is a string', async () => {
      await checkExtend('code + 1', (e) => {
        const c = f(e, 'code');
        return c === null ? null : typeof c === 'string' ? `${c}1` : (c as number) + 1;
      });
      await checkExtend('"id:" + rid', (e) => `id:${e.fields.rid}`);
      await checkExtend('host + "/" + ms', (e) => (f(e, 'ms') === null ? null : `${e.host}/${String(f(e, 'ms'))}`));
      await checkExtend('1 + 2 + "x"', () => '3x');
      await checkExtend('"x" + 1 + 2', () => 'x12');
    });

    it('arithmetic on null gives null', async () => {
      await checkExtend('ratio * 100', (e) => (f(e, 'ratio') === null ? null : (f(e, 'ratio') as number) * 100));
      await checkExtend('null + 1', () => null);
      await checkExtend('no_such_field - 1', () => null);
    });

    it('division and modulo by zero give null', async () => {
      await checkExtend('bytes / 0', () => null);
      await checkExtend('bytes % 0', () => null);
      await checkExtend('ms / delta', (e) => {
        const ms = f(e, 'ms');
        const d = f(e, 'delta');
        return ms === null || d === null || d === 0 ? null : (ms as number) / (d as number);
      });
      await checkExtend('1 / (status - status)', () => null);
    });

    it('unary minus', async () => {
      await checkExtend('-ms', (e) => (f(e, 'ms') === null ? null : -(f(e, 'ms') as number)));
      await checkExtend('-(ms + 1) * 2', (e) => (f(e, 'ms') === null ? null : -((f(e, 'ms') as number) + 1) * 2));
      await checkExtend('- -delta', (e) => (f(e, 'delta') === null ? null : (f(e, 'delta') as number) + 0));
      await checkExtend('10 - -3', () => 13);
    });

    it('precedence: * / % before + -, left to right; parentheses', async () => {
      await checkExtend('1 + 2 * 3', () => 7);
      await checkExtend('(1 + 2) * 3', () => 9);
      await checkExtend('10 - 4 - 3', () => 3);
      await checkExtend('2 * 3 % 4', () => 2);
      await checkExtend('100 / 10 / 5', () => 2);
      await checkExtend('-2 * 3 + 10 % 4', () => -4);
      await checkExtend('bytes - bytes % 1000', (e) =>
        f(e, 'bytes') === null ? null : (f(e, 'bytes') as number) - ((f(e, 'bytes') as number) % 1000),
      );
    });

    it('time arithmetic: time + duration is a time (ISO in results), time - time is seconds', async () => {
      await checkExtend('_time + 1h', (e) => new Date(e.timeMs + 3600_000).toISOString());
      await checkExtend('_time - 90s', (e) => new Date(e.timeMs - 90_000).toISOString());
      await checkExtend('_time - (_time - 5m)', () => 300);
      await checkWhere('now() - _time > 3600', () => true);
    });
  });

  describe('logic', () => {
    it('and binds tighter than or', () =>
      checkWhere('level = "error" or level = "warn" and status >= 500', (e) =>
        or(cmp(f(e, 'level'), '=', 'error'), and(cmp(f(e, 'level'), '=', 'warn'), cmp(f(e, 'status'), '>=', 500))),
      ));

    it('not binds tighter than and', () =>
      checkWhere('not level = "info" and ms > 100', (e) => and(not(cmp(f(e, 'level'), '=', 'info')), cmp(f(e, 'ms'), '>', 100))));

    it('parentheses override', () =>
      checkWhere('(level = "error" or level = "warn") and status >= 500', (e) =>
        and(or(cmp(f(e, 'level'), '=', 'error'), cmp(f(e, 'level'), '=', 'warn')), cmp(f(e, 'status'), '>=', 500)),
      ));

    it('three-valued logic: null or true is true, not null is null (false in where)', async () => {
      await checkWhere('ms > 1000 or cached = true', (e) =>
        or(cmp(f(e, 'ms'), '>', 1000), f(e, 'cached') === null ? null : f(e, 'cached') === true),
      );
      await checkWhere('not (ms > 100)', (e) => not(cmp(f(e, 'ms'), '>', 100)));
      await checkWhere('not not (ms > 100)', (e) => cmp(f(e, 'ms'), '>', 100));
      await checkWhere('not (ms > 100 and bytes > 100)', (e) => not(and(cmp(f(e, 'ms'), '>', 100), cmp(f(e, 'bytes'), '>', 100))));
    });

    it('a boolean field alone is a condition; a non-boolean is not true', async () => {
      await checkWhere('cached', (e) => f(e, 'cached') === true);
      await checkWhere('not cached', (e) => (f(e, 'cached') === null ? null : f(e, 'cached') === false));
      await checkWhere('ms', () => false, 'main', true);
    });

    it('comparison results can be stored and combined', () =>
      checkExtend('(ms > 100) and (bytes < 1000)', (e) => and(cmp(f(e, 'ms'), '>', 100), cmp(f(e, 'bytes'), '<', 1000))));
  });
});

/**
 * Golden tests, scalar functions: every function of docs/language.md, evaluated by the server over every
 * event with `extend`, and compared per event with a plain-JS reference written from the documented
 * semantics (query/functions/*.ts doc comments). Numbers within 1e-9 relative, the rest exactly.
 */
import { strict as assert } from 'assert';
import { EVENTS, get, md5, num, sha256, text, type GoldenEvent, type V } from './dataset';
import { byRid, events, golden, same } from './server';

type Ref = (e: GoldenEvent) => V;

/** One query: `extend` every expression as x0, x1, ... and compare each event with its reference. */
async function check(cases: [string, Ref][], from = '*'): Promise<void> {
  const names = cases.map((_, k) => `x${k}`);
  const q = `from ${from} | extend ${cases.map(([expr], k) => `${names[k]} = ${expr}`).join(', ')} | keep rid, ${names.join(', ')}`;
  const result = await events(q);
  const got = byRid(result.events);
  const pool = from === '*' ? EVENTS : EVENTS.filter((e) => e.index === from);
  assert.equal(got.size, pool.length, q);
  const failures: string[] = [];
  for (const e of pool) {
    const row = got.get(e.fields.rid as string)!;
    cases.forEach(([expr, ref], k) => {
      const expected = ref(e);
      try {
        same(row[names[k]!] ?? null, expected, '');
      } catch {
        failures.push(
          `${expr} for ${e.fields.rid}: got ${JSON.stringify(row[names[k]!])}, expected ${JSON.stringify(expected)} (input ${JSON.stringify(e.fields)})`,
        );
      }
    });
  }
  assert.deepEqual(failures.slice(0, 8), [], `${failures.length} mismatches`);
}

const f = (e: GoldenEvent, name: string): V => get(e, name);
const s = (e: GoldenEvent, name: string): string | null => text(f(e, name));
const n = (e: GoldenEvent, name: string): number | null => {
  const v = f(e, name);
  return typeof v === 'number' ? v : null;
};
/** Unary text function: null in, null out. */
const t1 =
  (name: string, fn: (x: string) => V): Ref =>
  (e) => {
    const x = s(e, name);
    return x === null ? null : fn(x);
  };
/** Unary numeric function over toNumber's reading; non-finite results are null. */
const n1 =
  (name: string, fn: (x: number) => number): Ref =>
  (e) => {
    const x = num(f(e, name));
    if (x === null) return null;
    const y = fn(x);
    return Number.isFinite(y) ? y + 0 : null;
  };

// --- references with some logic ------------------------------------------------------------------

/** substr(s, start[, len]): 1-based code points; 0 reads as 1; negative from the end, clamped; negative len null. */
function substr(str: string | null, start: number, len?: number): V {
  if (str === null) return null;
  if (len !== undefined && len < 0) return null;
  const cps = [...str];
  let from = start > 0 ? start - 1 : start < 0 ? cps.length + start : 0;
  if (from < 0) from = 0;
  return cps.slice(from, len === undefined ? undefined : from + len).join('');
}

/** split(s, sep, i): the i-th part (negative from the end); out of range null. */
function split(str: string | null, sep: string, index: number): V {
  if (str === null) return null;
  const parts = str.split(sep);
  const k = index < 0 ? parts.length + index : index;
  return k >= 0 && k < parts.length ? parts[k]! : null;
}

/** round(x, d): half away from zero on the decimal digits as written (shortest form of x). */
function roundHalfAway(x: number, d: number): number {
  const neg = x < 0;
  const abs = String(Math.abs(x));
  assert.ok(!abs.includes('e'), 'the dataset has no exponent-form numbers');
  const [intPart, frac = ''] = abs.split('.');
  const digits = intPart! + frac;
  const cut = intPart!.length + d;
  if (cut >= digits.length) return x;
  if (cut < 0) return 0;
  const kept = BigInt(digits.slice(0, cut) || '0') + (digits[cut]! >= '5' ? 1n : 0n);
  const r = Number(`${kept}e${-d}`);
  return neg && r !== 0 ? -r : r;
}

/** least/greatest per the documented rule. */
function extremum(values: V[], greatest: boolean): V {
  const present = values.filter((v): v is string | number | boolean => v !== null);
  if (present.length === 0) return null;
  const numeric = present.map(num).filter((x): x is number => x !== null && Number.isFinite(x));
  const strings = present.filter((v): v is string => typeof v === 'string');
  if (numeric.length === present.length || strings.length < present.length) {
    return numeric.length === 0 ? null : greatest ? Math.max(...numeric) : Math.min(...numeric);
  }
  return strings.reduce((a, b) => (greatest ? (b > a ? b : a) : b < a ? b : a));
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const p2 = (x: number): string => String(x).padStart(2, '0');

function strftime(ms: number, format: string): string {
  const d = new Date(ms);
  const yday = Math.floor((ms - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86400_000) + 1;
  const h = d.getUTCHours();
  const map: Record<string, string> = {
    Y: String(d.getUTCFullYear()),
    y: p2(d.getUTCFullYear() % 100),
    m: p2(d.getUTCMonth() + 1),
    d: p2(d.getUTCDate()),
    e: String(d.getUTCDate()).padStart(2, ' '),
    H: p2(h),
    I: p2(h % 12 === 0 ? 12 : h % 12),
    p: h < 12 ? 'AM' : 'PM',
    M: p2(d.getUTCMinutes()),
    S: p2(d.getUTCSeconds()),
    j: String(yday).padStart(3, '0'),
    a: DAYS[d.getUTCDay()]!.slice(0, 3),
    A: DAYS[d.getUTCDay()]!,
    b: MONTHS[d.getUTCMonth()]!.slice(0, 3),
    B: MONTHS[d.getUTCMonth()]!,
    u: String(d.getUTCDay() === 0 ? 7 : d.getUTCDay()),
    w: String(d.getUTCDay()),
    z: '+0000',
    Z: 'UTC',
    s: String(Math.floor(ms / 1000)),
    L: String(d.getUTCMilliseconds()).padStart(3, '0'),
    '%': '%',
  };
  const expanded = format.replace(/%F/g, '%Y-%m-%d').replace(/%T/g, '%H:%M:%S');
  return expanded.replace(/%(.)/g, (m, c: string) => map[c] ?? m);
}

/** strptime for "%Y-%m-%d %H:%M:%S" (optionally " %z"): the instant as ISO, null when it does not read. */
function strptime(str: string | null, withZone: boolean): V {
  if (str === null) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?: ([+-])(\d{2})(\d{2}))?$/.exec(str);
  if (!m || (withZone && m[7] === undefined) || (!withZone && m[7] !== undefined)) return null;
  let ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  if (m[7] !== undefined) ms -= (m[7] === '+' ? 1 : -1) * (+m[8]! * 60 + +m[9]!) * 60_000;
  return new Date(ms).toISOString();
}

/** json_extract: scalars as they are, objects/arrays as compact JSON, anything missing null. */
function jsonExtract(str: string | null, path: (string | number)[]): V {
  if (str === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(str);
  } catch {
    return null;
  }
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(value)) return null;
      value = value[step < 0 ? value.length + step : step];
    } else {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.prototype.hasOwnProperty.call(value, step))
        return null;
      value = (value as Record<string, unknown>)[step];
    }
    if (value === undefined) return null;
  }
  if (value === null) return null;
  return typeof value === 'object' ? JSON.stringify(value) : (value as V);
}

function urlDecode(str: string): string {
  try {
    return decodeURIComponent(str);
  } catch {
    return str;
  }
}

describe('golden: scalar functions', function () {
  before(async function () {
    this.timeout(120_000);
    await golden();
  });

  it('lower upper len trim ltrim rtrim (unicode; numbers and times read as text)', () =>
    check([
      ['lower(user)', t1('user', (x) => x.toLowerCase())],
      ['upper(user)', t1('user', (x) => x.toUpperCase())],
      ['len(user)', t1('user', (x) => [...x].length)],
      ['len(ms)', t1('ms', (x) => x.length)],
      ['len(_time)', () => 24],
      ['trim(pad)', t1('pad', (x) => x.trim())],
      ['ltrim(pad)', t1('pad', (x) => x.trimStart())],
      ['rtrim(pad)', t1('pad', (x) => x.trimEnd())],
      ['LOWER(region)', t1('region', (x) => x.toLowerCase())],
      ['upper(cached)', t1('cached', (x) => x.toUpperCase())],
    ]));

  it('substr: 1-based, negative start from the end, optional length, code points', () =>
    check([
      ['substr(user, 2)', (e) => substr(s(e, 'user'), 2)],
      ['substr(user, 1, 3)', (e) => substr(s(e, 'user'), 1, 3)],
      ['substr(user, -3)', (e) => substr(s(e, 'user'), -3)],
      ['substr(user, 0, 2)', (e) => substr(s(e, 'user'), 0, 2)],
      ['substr(user, -100, 2)', (e) => substr(s(e, 'user'), -100, 2)],
      ['substr(user, 2, -1)', (e) => substr(s(e, 'user'), 2, -1)],
      ['substr(user, 50)', (e) => substr(s(e, 'user'), 50)],
      ['substr(rid, 2, 100)', (e) => substr(s(e, 'rid'), 2, 100)],
      ['substr(bytes, 1, 2)', (e) => substr(s(e, 'bytes'), 1, 2)],
      [
        'upper(substr(user, 1, 1)) + lower(substr(user, 2))',
        (e) => {
          const u = s(e, 'user');
          return u === null ? null : `${(substr(u, 1, 1) as string).toUpperCase()}${(substr(u, 2) as string).toLowerCase()}`;
        },
      ],
    ]));

  it('replace (every match, $1 and ${1} group references), split', () =>
    check([
      ['replace(user, "[aeiou]", "*")', t1('user', (x) => x.replace(/[aeiou]/g, '*'))],
      ['replace(url, "%([0-9A-F]{2})", "<$1>")', t1('url', (x) => x.replace(/%([0-9A-F]{2})/g, '<$1>'))],
      ['replace(rid, "^r([0-9]+)$", "${1}!")', t1('rid', (x) => x.replace(/^r([0-9]+)$/g, '$1!'))],
      ['replace(ms, "[.]", ",")', t1('ms', (x) => x.replace(/[.]/g, ','))],
      ['split(tags, ",", 0)', (e) => split(s(e, 'tags'), ',', 0)],
      ['split(tags, ",", 1)', (e) => split(s(e, 'tags'), ',', 1)],
      ['split(tags, ",", -1)', (e) => split(s(e, 'tags'), ',', -1)],
      ['split(tags, ",", -4)', (e) => split(s(e, 'tags'), ',', -4)],
      ['split(tags, ",", 5)', (e) => split(s(e, 'tags'), ',', 5)],
      ['split(url, "=", 1)', (e) => split(s(e, 'url'), '=', 1)],
    ]));

  it('contains startswith endswith (case-sensitive), match, extract', () =>
    check([
      ['contains(user, "o")', t1('user', (x) => x.includes('o'))],
      ['contains(lower(user), "é")', t1('user', (x) => x.toLowerCase().includes('é'))],
      ['startswith(url, "/search?q=caf")', t1('url', (x) => x.startsWith('/search?q=caf'))],
      ['endswith(user, "e")', t1('user', (x) => x.endsWith('e'))],
      ['startswith(status, "5")', t1('status', (x) => x.startsWith('5'))],
      ['match(url, "page=[1-3]$")', t1('url', (x) => /page=[1-3]$/.test(x))],
      ['match(user, "^[a-z ]+$")', t1('user', (x) => /^[a-z ]+$/.test(x))],
      ['extract(url, "page=([0-9]+)")', t1('url', (x) => /page=([0-9]+)/.exec(x)?.[1] ?? null)],
      ['extract(url, "q=([^&]*)&", 1)', t1('url', (x) => /q=([^&]*)&/.exec(x)?.[1] ?? null)],
      ['extract(url, "q=([^&]*)&", 0)', t1('url', (x) => /q=([^&]*)&/.exec(x)?.[0] ?? null)],
      ['extract(rid, "r(?P<num>[0-9]+)", "num")', t1('rid', (x) => /r(?<num>[0-9]+)/.exec(x)?.groups?.num ?? null)],
      ['extract(user, "[A-Z]")', t1('user', (x) => /[A-Z]/.exec(x)?.[0] ?? null)],
      ['extract(tags, "(red)|(blue)", 2)', t1('tags', (x) => /(red)|(blue)/.exec(x)?.[2] ?? null)],
    ]));

  it('concat coalesce if case isnull isnotnull', () =>
    check([
      ['concat(host, "-", rid)', (e) => `${e.host}-${e.fields.rid}`],
      ['concat(user, "/", code)', (e) => (s(e, 'user') === null || s(e, 'code') === null ? null : `${s(e, 'user')}/${s(e, 'code')}`)],
      ['concat(ms)', (e) => s(e, 'ms')],
      ['coalesce(user, code, "none")', (e) => f(e, 'user') ?? f(e, 'code') ?? 'none'],
      ['coalesce(ms, bytes)', (e) => f(e, 'ms') ?? f(e, 'bytes')],
      ['coalesce(no_such_field)', () => null],
      ['if(status >= 500, "5xx", "other")', (e) => (n(e, 'status') !== null && n(e, 'status')! >= 500 ? '5xx' : 'other')],
      ['if(cached, 1, 0)', (e) => (f(e, 'cached') === true ? 1 : 0)],
      [
        'case(ms > 1000, "slow", ms > 100, "mid", "fast")',
        (e) => {
          const ms = n(e, 'ms');
          return ms !== null && ms > 1000 ? 'slow' : ms !== null && ms > 100 ? 'mid' : 'fast';
        },
      ],
      ['case(level = "error", 3, level = "warn", 2)', (e) => (f(e, 'level') === 'error' ? 3 : f(e, 'level') === 'warn' ? 2 : null)],
      ['isnull(user)', (e) => f(e, 'user') === null],
      ['isnotnull(pad)', (e) => f(e, 'pad') !== null],
      ['isnull(ms / 0)', () => true],
    ]));

  it('tonumber tostring toint', () =>
    check([
      ['tonumber(code)', (e) => num(f(e, 'code'))],
      ['tonumber(cached)', (e) => num(f(e, 'cached'))],
      ['tonumber(pad)', (e) => num(f(e, 'pad'))],
      ['tonumber("  42.5 ")', () => 42.5],
      ['toint(delta)', n1('delta', Math.trunc)],
      ['toint(code)', n1('code', Math.trunc)],
      ['toint("3.9")', () => 3],
      ['toint(-3.9)', () => -3],
      ['tostring(ms)', (e) => s(e, 'ms')],
      ['tostring(cached)', (e) => s(e, 'cached')],
      ['tostring(_time)', (e) => e.iso],
      ['tostring(code) + ""', (e) => s(e, 'code')],
    ]));

  it('round floor ceil abs', () =>
    check([
      ['round(ms)', n1('ms', (x) => roundHalfAway(x, 0))],
      ['round(ms, 1)', n1('ms', (x) => roundHalfAway(x, 1))],
      ['round(ms, 2)', n1('ms', (x) => roundHalfAway(x, 2))],
      ['round(delta, 1)', n1('delta', (x) => roundHalfAway(x, 1))],
      ['round(delta)', n1('delta', (x) => roundHalfAway(x, 0))],
      ['round(bytes, -2)', n1('bytes', (x) => roundHalfAway(x, -2))],
      ['round(2.5)', () => 3],
      ['round(-2.5)', () => -3],
      ['round(1.005, 2)', () => 1.01],
      ['floor(delta)', n1('delta', Math.floor)],
      ['ceil(delta)', n1('delta', Math.ceil)],
      ['abs(delta)', n1('delta', Math.abs)],
      ['floor(code)', n1('code', Math.floor)],
    ]));

  it('sqrt ln log10 exp pow (invalid math is null)', () =>
    check([
      ['sqrt(delta)', n1('delta', Math.sqrt)],
      ['ln(ms)', n1('ms', Math.log)],
      ['ln(delta)', n1('delta', Math.log)],
      ['log10(bytes)', n1('bytes', Math.log10)],
      ['exp(ratio)', n1('ratio', Math.exp)],
      ['exp(ms)', n1('ms', Math.exp)],
      ['pow(ratio, 2)', n1('ratio', (x) => x ** 2)],
      ['pow(delta, 0.5)', n1('delta', (x) => x ** 0.5)],
      ['pow(2, 10)', () => 1024],
      ['pow(0, -1)', () => null],
      [
        'pow(bytes, ratio)',
        (e) => {
          const b = n(e, 'bytes');
          const r = n(e, 'ratio');
          return b === null || r === null ? null : b ** r;
        },
      ],
    ]));

  it('least greatest (nulls ignored; numbers, numeric strings, strings)', () =>
    check([
      ['greatest(ms, bytes, 100)', (e) => extremum([f(e, 'ms'), f(e, 'bytes'), 100], true)],
      ['least(delta, 0)', (e) => extremum([f(e, 'delta'), 0], false)],
      ['least(ms, null)', (e) => extremum([f(e, 'ms')], false)],
      ['least(user, region)', (e) => extremum([f(e, 'user'), f(e, 'region')], false)],
      ['greatest(user, region)', (e) => extremum([f(e, 'user'), f(e, 'region')], true)],
      ['greatest(code, 50)', (e) => extremum([f(e, 'code'), 50], true)],
      ['least(code, "60")', (e) => extremum([f(e, 'code'), '60'], false)],
      ['greatest(no_such_field)', () => null],
    ]));

  it('now() is the query clock, the same for every row', async () => {
    const before = Date.now();
    const result = await events('from main | extend n = now() | keep rid, n');
    const after = Date.now();
    const values = new Set(result.events.map((row) => row.n));
    assert.equal(values.size, 1);
    const ms = Date.parse([...values][0] as string);
    assert.ok(ms >= before - 1000 && ms <= after, `now() ${[...values][0]} not within the request`);
  });

  it('bin(t, duration) and numeric bin', () =>
    check([
      ['bin(_time, 5m)', (e) => new Date(Math.floor(e.timeMs / 300_000) * 300_000).toISOString()],
      ['bin(_time, 1h)', (e) => new Date(Math.floor(e.timeMs / 3600_000) * 3600_000).toISOString()],
      ['bin(_time, 250ms)', (e) => new Date(Math.floor(e.timeMs / 250) * 250).toISOString()],
      ['bin(ms, 100)', n1('ms', (x) => Math.floor(x / 100) * 100)],
      ['bin(delta, 10)', n1('delta', (x) => Math.floor(x / 10) * 10)],
      ['bin(bytes, 0.5)', n1('bytes', (x) => Math.floor(x / 0.5) * 0.5)],
    ]));

  it('strftime (UTC)', () =>
    check([
      ['strftime(_time, "%Y-%m-%d %H:%M:%S.%L")', (e) => strftime(e.timeMs, '%Y-%m-%d %H:%M:%S.%L')],
      ['strftime(_time, "%a %A %b %B %e %j %I%p %u %w")', (e) => strftime(e.timeMs, '%a %A %b %B %e %j %I%p %u %w')],
      ['strftime(_time, "%s %z %Z %% %F %T %y")', (e) => strftime(e.timeMs, '%s %z %Z %% %F %T %y')],
      ['strftime(bin(_time, 1h), "%H:00")', (e) => strftime(Math.floor(e.timeMs / 3600_000) * 3600_000, '%H:00')],
    ]));

  it('strptime (text to time; ISO in results; null when it does not read)', () =>
    check([
      ['strptime(when, "%Y-%m-%d %H:%M:%S")', (e) => strptime(s(e, 'when'), false)],
      [
        'strptime(concat(when, " +0230"), "%Y-%m-%d %H:%M:%S %z")',
        (e) => strptime(s(e, 'when') === null ? null : `${s(e, 'when')} +0230`, true),
      ],
      ['strptime("02/Mar/2026:08:00:03 +0000", "%d/%b/%Y:%H:%M:%S %z")', () => '2026-03-02T08:00:03.000Z'],
      ['strptime("1772438400", "%s")', () => new Date(1772438400_000).toISOString()],
      [
        'strftime(strptime(when, "%Y-%m-%d %H:%M:%S"), "%H")',
        (e) => {
          const iso = strptime(s(e, 'when'), false);
          return iso === null ? null : strftime(Date.parse(iso as string), '%H');
        },
      ],
    ]));

  it('json_extract (paths, arrays, objects as JSON text, invalid JSON null)', () =>
    check([
      ['json_extract(payload, "$.a.b")', (e) => jsonExtract(s(e, 'payload'), ['a', 'b'])],
      ['json_extract(payload, "$.arr[1]")', (e) => jsonExtract(s(e, 'payload'), ['arr', 1])],
      ['json_extract(payload, "$.arr[-1]")', (e) => jsonExtract(s(e, 'payload'), ['arr', -1])],
      ['json_extract(payload, "$.deep")', (e) => jsonExtract(s(e, 'payload'), ['deep'])],
      ['json_extract(payload, "$.arr")', (e) => jsonExtract(s(e, 'payload'), ['arr'])],
      ['json_extract(payload, "$.s")', (e) => jsonExtract(s(e, 'payload'), ['s'])],
      ["json_extract(payload, \"$['deep']['x'].y\")", (e) => jsonExtract(s(e, 'payload'), ['deep', 'x', 'y'])],
      ['json_extract(payload, "$.missing")', () => null],
      ['json_extract(_raw, "$.req.ms")', (e) => (e.source === 'api' ? jsonExtract(e.raw, ['req', 'ms']) : null)],
      ['json_extract(_raw, "$.req")', (e) => (e.source === 'api' ? jsonExtract(e.raw, ['req']) : null)],
    ]));

  it('url_decode (UTF-8 escapes; + stays +; malformed input unchanged)', () =>
    check([
      ['url_decode(url)', t1('url', urlDecode)],
      ['url_decode("a%20b+c%2B")', () => 'a b+c+'],
      ['url_decode("100%")', () => '100%'],
    ]));

  it('md5 sha256 (lowercase hex of the UTF-8 text; numbers by their text)', () =>
    check([
      ['md5(rid)', t1('rid', md5)],
      ['sha256(user)', t1('user', sha256)],
      ['md5(ms)', t1('ms', md5)],
      ['sha256("")', () => sha256('')],
    ]));
});

/**
 * Golden tests, `parse`: json, kv, logfmt, regex, pattern, combined, clf, syslog. The expected fields
 * come from the generator's own parts of each line (dataset.ts `parsed`), with the documented rules:
 * numeric-looking captures become numbers; json/kv/logfmt/combined/clf/syslog only fill gaps (an
 * existing field keeps its value); regex and pattern overwrite the fields they name.
 */
import { strict as assert } from 'assert';
import { capture, EVENTS, get, newestFirst, numbers, statsGroups, sum, type GoldenEvent, type Row, type V } from './dataset';
import { aggregate, byRid, close, events, golden } from './server';

type Format = keyof GoldenEvent['parsed'];

/** The value of `name` after parsing: fill-gap formats keep an existing value; overwrite ones replace it. */
function after(e: GoldenEvent, extracted: Row | undefined, name: string, overwrite: boolean): V {
  const existing = get(e, name);
  const parsed = extracted !== undefined && Object.prototype.hasOwnProperty.call(extracted, name) ? extracted[name]! : null;
  if (overwrite) return parsed !== null ? parsed : existing;
  return existing !== null ? existing : parsed;
}

/** Runs `from <from> | <where> | parse <spec> | keep rid, names` and checks every event. */
async function checkParse(
  q: string,
  pool: GoldenEvent[],
  names: string[],
  extracted: (e: GoldenEvent) => Row | undefined,
  overwrite = false,
): Promise<void> {
  const query = `${q} | keep rid, ${names.map((n) => (/^[A-Za-z_@][A-Za-z0-9_.@:-]*$/.test(n) ? n : `\`${n}\``)).join(', ')}`;
  const result = await events(query);
  const got = byRid(result.events);
  assert.equal(got.size, pool.length, `${query}: row count`);
  const failures: string[] = [];
  for (const e of pool) {
    const row = got.get(e.fields.rid as string)!;
    for (const name of names) {
      const expected = after(e, extracted(e), name, overwrite);
      if (JSON.stringify(row[name] ?? null) !== JSON.stringify(expected)) {
        failures.push(
          `${name} of ${e.fields.rid}: got ${JSON.stringify(row[name])}, expected ${JSON.stringify(expected)}; _raw ${JSON.stringify(e.raw)}; fields ${JSON.stringify(e.fields)}`,
        );
      }
    }
  }
  assert.deepEqual(failures.slice(0, 6), [], `${failures.length} mismatches for ${query}`);
}

const of =
  (format: Format) =>
  (e: GoldenEvent): Row | undefined =>
    e.parsed[format];
const bySource = (...sources: string[]): GoldenEvent[] => EVENTS.filter((e) => sources.includes(e.source));

const COMBINED = ['client_ip', 'user', 'timestamp', 'method', 'path', 'protocol', 'status', 'bytes', 'referrer', 'user_agent'];

describe('golden: parse', function () {
  before(async function () {
    this.timeout(120_000);
    await golden();
  });

  it('combined: every field; user, bytes and status keep the event value when it exists', () =>
    checkParse('from web | parse combined(_raw)', bySource('nginx'), COMBINED, of('combined')));

  it('clf: the clf fields only (no referrer or user_agent)', () =>
    checkParse('from web | parse clf(_raw)', bySource('nginx'), COMBINED, of('clf')));

  it('combined over lines that are not access logs extracts nothing', () =>
    checkParse(
      'from app, main | parse combined(_raw)',
      bySource('api', 'worker', 'misc', 'billing', 'syslog'),
      ['client_ip', 'method', 'protocol', 'referrer'],
      () => undefined,
    ));

  it('json: flattened names, arrays as JSON text, JSON null absent, types kept, existing fields kept', () =>
    checkParse(
      'from app | where source = "api" | parse json(_raw)',
      bySource('api'),
      ['ts', 'level', 'msg', 'req.id', 'req.route', 'req.ms', 'req.ok', 'tags', 'attempt', 'zip', 'count', 'user', 'code', 'empty'],
      of('json'),
    ));

  it('json over non-JSON lines extracts nothing', () =>
    checkParse(
      'from app | where source != "api" | parse json(_raw)',
      bySource('worker', 'misc'),
      ['ts', 'msg', 'req.id'],
      () => undefined,
    ));

  it('json of another field (payload); invalid JSON gives nothing', () =>
    checkParse(
      'from * | where payload is not null | parse json(payload)',
      EVENTS.filter((e) => e.fields.payload !== undefined),
      ['a.b', 'arr', 's', 'deep.x.y', 'deep'],
      (e) => {
        try {
          const v = JSON.parse(e.fields.payload as string) as { a: { b: number }; arr: number[]; s: string; deep: { x: { y: string } } };
          return { 'a.b': v.a.b, arr: JSON.stringify(v.arr), s: v.s, 'deep.x.y': v.deep.x.y };
        } catch {
          return undefined;
        }
      },
    ));

  it('logfmt: quoted values with escapes, bare keys true, key= empty, numeric captures', () =>
    checkParse(
      'from app | where source = "worker" | parse logfmt(_raw)',
      bySource('worker'),
      ['ts', 'level', 'msg', 'job', 'duration_ms', 'attempt', 'val', 'retry', 'queue', 'wid'],
      of('logfmt'),
    ));

  it('kv: separators space , ; and quotes; words without = skipped', () =>
    checkParse(
      'from main | where source = "billing" | parse kv(_raw)',
      bySource('billing'),
      ['invoice', 'amount', 'currency', 'customer', 'status', 'items', 'note', 'zip', 'BILLING'],
      of('kv'),
    ));

  it('syslog: RFC 3164 and RFC 5424 with structured data', () =>
    checkParse(
      'from main | where source = "syslog" | parse syslog(_raw)',
      bySource('syslog'),
      [
        'priority',
        'facility',
        'severity',
        'timestamp',
        'host',
        'appname',
        'procid',
        'msgid',
        'message',
        'sd.exampleSDID@32473.iut',
        'sd.exampleSDID@32473.eventSource',
      ],
      of('syslog'),
    ));

  it('regex: named groups, numeric captures ("2.0" is 2)', () =>
    checkParse(
      'from web | parse regex(_raw, "(?<verb>GET|POST|PUT|DELETE|HEAD) (?<uri>[^ ]+) HTTP/(?<httpver>[0-9.]+)")',
      bySource('nginx'),
      ['verb', 'uri', 'httpver'],
      (e) => {
        const c = e.parsed.combined!;
        return { verb: c.method!, uri: c.path!, httpver: capture((c.protocol as string).slice(5)) };
      },
      true,
    ));

  it('pattern: <name> captures up to the next literal, <_> skips; captures follow the numeric rule', () =>
    checkParse(
      'from web | parse pattern(_raw, "<ip> - <auth> [<ts>] \\"<method> <uri> <proto>\\" <st> <size> <_>")',
      bySource('nginx'),
      ['ip', 'auth', 'ts', 'method', 'uri', 'proto', 'st', 'size'],
      of('pattern'),
      true,
    ));

  it('pattern names an existing field: it is overwritten', () =>
    checkParse(
      'from web | parse pattern(_raw, "<_> - <user> [<_>")',
      bySource('nginx'),
      ['user', 'bytes'],
      (e) => ({ user: capture(e.raw.split(' ')[2]!) }),
      true,
    ));

  it('regex names an existing field: overwritten where it matches, kept where it does not', () =>
    // about half of the nginx lines start with "10.": matching and non-matching rows share segments
    checkParse(
      'from web, app | parse regex(_raw, "^(?<user>10)[.]")',
      bySource('nginx', 'api', 'worker', 'misc'),
      ['user'],
      (e) => (e.raw.startsWith('10.') ? { user: 10 } : undefined),
      true,
    ));

  it('pattern that does not match leaves existing fields alone', () =>
    checkParse(
      'from app | parse pattern(_raw, "ts=<user> level=")',
      bySource('api', 'worker', 'misc'),
      ['user'],
      (e) => {
        const m = /^ts=(.*?) level=/.exec(e.raw);
        return m ? { user: capture(m[1]!) } : undefined;
      },
      true,
    ));

  it('parse of an absent field changes nothing', () =>
    checkParse('from main | parse json(no_such_field)', bySource('billing', 'syslog'), ['user', 'host'], () => undefined));

  it('extracted fields work in where and stats', async () => {
    const data = await aggregate('from web | parse combined(_raw) | where protocol = "HTTP/2.0" | stats count(), max(path) by method');
    const pool = bySource('nginx').filter((e) => e.parsed.combined!.protocol === 'HTTP/2.0');
    const expected = statsGroups(pool, (e) => [e.parsed.combined!.method!]).map((g) => [
      g.key[0]!,
      g.items.length,
      g.items.map((e) => e.parsed.combined!.path as string).reduce((a, b) => (b > a ? b : a)),
    ]);
    assert.deepEqual(data.rows, expected);

    const billing = await aggregate(
      'from main | where source = "billing" | parse kv(_raw) | where amount > 100 | stats sum(amount) as s, count() as n, avg(items) by currency',
    );
    const big = bySource('billing').filter((e) => (e.parsed.kv!.amount as number) > 100);
    assert.equal(
      billing.rows.length,
      1,
      'kv, then where amount > 100, then stats by currency: one group expected (0 rows means the where found nothing)',
    );
    assert.equal(billing.rows[0]![0], 'EUR');
    close(billing.rows[0]![1], sum(big.map((e) => e.parsed.kv!.amount as number)), 1e-9, 'sum(amount)');
    assert.equal(billing.rows[0]![2], big.length);
    close(billing.rows[0]![3], sum(big.map((e) => e.parsed.kv!.items as number)) / big.length, 1e-9, 'avg(items)');
  });

  describe('where and search on fields that json/kv/logfmt/syslog extract', () => {
    const billing = bySource('billing');
    const cases: [string, number][] = [
      ['from main | parse kv(_raw) | where amount > 100', billing.filter((e) => (e.parsed.kv!.amount as number) > 100).length],
      ['from main | parse kv(_raw) | where currency = "EUR"', billing.length],
      ['from main | parse kv(_raw) | where currency in ("EUR", "USD")', billing.length],
      ['from main | parse kv(_raw) | where currency is not null', billing.length],
      ['from main | parse kv(_raw) | search currency=EUR', billing.length],
      ['from main | parse kv(_raw) | search status=paid', billing.filter((e) => e.parsed.kv!.status === 'paid').length],
      [
        'from app | parse json(_raw) | where req.ms > 100',
        bySource('api').filter((e) => (e.parsed.json!['req.ms'] as number) > 100).length,
      ],
      ['from app | parse json(_raw) | where attempt = 3', bySource('api').filter((e) => e.parsed.json!.attempt === 3).length],
      [
        'from app | parse logfmt(_raw) | where duration_ms >= 2500',
        bySource('worker').filter((e) => (e.parsed.logfmt!.duration_ms as number) >= 2500).length,
      ],
      ['from main | parse syslog(_raw) | where severity = 6', bySource('syslog').filter((e) => e.parsed.syslog!.severity === 6).length],
    ];
    for (const [q, expected] of cases) {
      it(`${q} finds ${expected} events`, async () => {
        assert.ok(expected > 0);
        const result = await events(`${q} | keep rid, _time`);
        assert.equal(result.total, expected, `${q}`);
      });
    }
  });

  it('parse then head returns the newest events with their extracted fields', async () => {
    const result = await events('from main | where source = "syslog" | parse syslog(_raw) | head 5 | keep rid, appname, severity');
    const expected = newestFirst(bySource('syslog')).slice(0, 5);
    assert.deepEqual(
      result.events,
      expected.map((e) => ({ rid: e.fields.rid, appname: e.parsed.syslog!.appname, severity: e.parsed.syslog!.severity })),
    );
  });

  it('numbers extracted by logfmt aggregate like stored numbers', async () => {
    const rows = (await aggregate('from app | parse logfmt(_raw) | where source = "worker" | stats sum(duration_ms), p50(duration_ms)'))
      .rows;
    const values = bySource('worker').map((e) => e.parsed.logfmt!.duration_ms as number);
    assert.equal(rows[0]![0], sum(values));
    void numbers;
    const sorted = [...values].sort((a, b) => a - b);
    close(rows[0]![1], sorted[Math.floor(0.5 * (sorted.length - 1))]!, 0.01, 'p50(duration_ms)');
  });
});

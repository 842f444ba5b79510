/**
 * Golden tests, `search`: terms (case-insensitive whole tokens of `_raw`), phrases, AND (explicit
 * and implied), OR, NOT, parentheses, token globs, field=value (case-insensitive, whole-value globs,
 * quoted literal), field!=value, the rare needle. Expected matches are computed with an independent
 * tokenizer over the dataset.
 */
import { strict as assert } from 'assert';
import { EVENTS, get, globRegex, hasPhrase, NEEDLE_AT, newestFirst, text, tokens, type GoldenEvent } from './dataset';
import { events, golden, rids } from './server';

async function checkSearch(q: string, predicate: (e: GoldenEvent) => boolean, from = '*', minimum = 1): Promise<number> {
  const result = await events(`from ${from} | search ${q} | keep rid, _time`);
  const pool =
    from === '*'
      ? EVENTS
      : EVENTS.filter((e) =>
          from
            .split(',')
            .map((x) => x.trim())
            .includes(e.index),
        );
  const expected = newestFirst(pool.filter(predicate)).map((e) => e.fields.rid);
  assert.deepEqual(rids(result.events), expected, `search ${q}: ${result.events.length} rows, expected ${expected.length}`);
  assert.equal(result.total, expected.length);
  assert.ok(expected.length >= minimum, `search ${q}: the dataset should have at least ${minimum} matches`);
  return expected.length;
}

const term =
  (word: string) =>
  (e: GoldenEvent): boolean =>
    tokens(e.raw).includes(word.toLowerCase());
const phrase =
  (p: string) =>
  (e: GoldenEvent): boolean =>
    hasPhrase(e.raw, p);
const tokenGlob = (glob: string) => {
  const re = globRegex(glob.toLowerCase(), '[A-Za-z0-9_\\u0080-\\uffff]');
  return (e: GoldenEvent): boolean => tokens(e.raw).some((t) => re.test(t));
};
const fieldIs = (name: string, glob: string, literal = false) => {
  const re = literal ? null : globRegex(glob);
  return (e: GoldenEvent): boolean => {
    const v = text(get(e, name));
    return v !== null && (re === null ? v.toLowerCase() === glob.toLowerCase() : re.test(v));
  };
};

describe('golden: search', function () {
  before(async function () {
    this.timeout(120_000);
    await golden();
  });

  it('a term matches whole tokens case-insensitively', async () => {
    const n = await checkSearch('timeout', term('timeout'));
    assert.ok(n > 50);
    await checkSearch('TimeOut', term('timeout'));
    await checkSearch('time', term('time'), '*', 0);
  });

  it('the rare needle: exactly 5 events, in any case', async () => {
    assert.equal(await checkSearch('zanzibar', term('zanzibar')), NEEDLE_AT.length);
    const result = await events('from * | search ZANZIBAR | keep _time');
    assert.deepEqual(
      result.events.map((r) => r._time),
      NEEDLE_AT.map((i) => EVENTS[i]!.iso).reverse(),
    );
  });

  it('a number term', () => checkSearch('503', term('503')));

  it('unicode terms fold case', async () => {
    await checkSearch('ÉCHEC', term('échec'));
    await checkSearch('échec', term('échec'));
  });

  it('a phrase matches the words in order, with token boundaries', async () => {
    await checkSearch('"connection reset"', phrase('connection reset'));
    await checkSearch('"reset connection"', phrase('reset connection'));
    await checkSearch('"request failed: timeout"', phrase('request failed: timeout'));
    await checkSearch('"port 22"', phrase('port 22'));
    await checkSearch('"onnection reset"', phrase('onnection reset'), '*', 0);
  });

  it('juxtaposed terms are an AND (in any order)', () => checkSearch('reset connection', (e) => term('reset')(e) && term('connection')(e)));

  it('AND, OR, NOT and their precedence (NOT tightest, AND over OR)', async () => {
    await checkSearch('timeout OR "connection reset"', (e) => term('timeout')(e) || phrase('connection reset')(e));
    await checkSearch('timeout AND NOT lock', (e) => term('timeout')(e) && !term('lock')(e));
    await checkSearch('error NOT timeout', (e) => term('error')(e) && !term('timeout')(e));
    await checkSearch('timeout OR refused cache', (e) => term('timeout')(e) || (term('refused')(e) && term('cache')(e)), '*', 1);
    await checkSearch('NOT timeout', (e) => !term('timeout')(e), 'app');
    await checkSearch('not timeout and (reset or refused)', (e) => !term('timeout')(e) && (term('reset')(e) || term('refused')(e)));
  });

  it('parentheses group', () =>
    checkSearch('(timeout OR refused) host=web-*', (e) => (term('timeout')(e) || term('refused')(e)) && fieldIs('host', 'web-*')(e)));

  it('token globs: * any run of token characters, ? one', async () => {
    await checkSearch('tim*', tokenGlob('tim*'));
    await checkSearch('t?meout', tokenGlob('t?meout'));
    await checkSearch('*bar', tokenGlob('*bar'));
  });

  it('field=value: case-insensitive whole value; globs; numbers by their text', async () => {
    await checkSearch('host=web-1', fieldIs('host', 'web-1', true));
    await checkSearch('host=WEB-*', fieldIs('host', 'web-*'));
    await checkSearch('status=5*', fieldIs('status', '5*'));
    await checkSearch('status=404', fieldIs('status', '404', true));
    await checkSearch('level=ERROR', fieldIs('level', 'error', true));
    await checkSearch('user=José', fieldIs('user', 'José', true));
    await checkSearch('region=?u-*', fieldIs('region', '?u-*'));
  });

  it('a quoted value is literal (no glob) and may hold spaces', async () => {
    await checkSearch('user="anne marie"', fieldIs('user', 'anne marie', true));
    await checkSearch('user="Zo*"', () => false, '*', 0);
  });

  it('field!=value needs the field; NOT field=value does not', async () => {
    await checkSearch('user!=alice', (e) => get(e, 'user') !== null && get(e, 'user') !== 'alice');
    await checkSearch('NOT user=alice', (e) => get(e, 'user') !== 'alice');
    await checkSearch('no_such_field=x', () => false, '*', 0);
  });

  it('search combined with where and another search', async () => {
    const result = await events('from app | search timeout | where source = "api" | search "request failed" | keep rid, _time');
    const expected = newestFirst(
      EVENTS.filter((e) => e.index === 'app' && term('timeout')(e) && e.source === 'api' && phrase('request failed')(e)),
    ).map((e) => e.fields.rid);
    assert.deepEqual(rids(result.events), expected);
    assert.ok(expected.length > 0);
  });

  it('terms and fields across several indexes', () =>
    checkSearch('reset source=syslog OR zanzibar', (e) => (term('reset')(e) && e.source === 'syslog') || term('zanzibar')(e), 'main, app'));
});

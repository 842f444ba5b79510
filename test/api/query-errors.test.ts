/**
 * Query errors through the real server: the INVALID_QUERY envelope of POST /query and the errors[]
 * of GET /query/explain carry the same fields, and every user pattern RE2 refuses is 400 E008 at
 * the pattern, at every place a pattern is written.
 */
import { strict as assert } from 'assert';
import { dispose } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';

const ERROR_FIELDS = ['column', 'line', 'message', 'parse_code', 'suggestion'];

/** Patterns RE2 refuses: counts, syntax, backreferences, lookaround, size. */
const BAD_PATTERNS = [
  '(a{100}){100}',
  '(',
  '[z-a]',
  '(a)\\1',
  '(?=a)',
  '(?<!a)b',
  'a{1001}',
  'a{2,1}',
  'x**',
  '\\',
  '\\p{Foo}',
  '[a',
  'a)',
  '(?<n>a)(?<n>b)',
  '(?x)a',
  '[^a]{1000}'.repeat(100),
];

/** A string literal of the query language that holds `text` exactly. */
function literal(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Every place a user regex is written, as a query around the pattern's literal. */
const REGEX_SITES: [string, (pattern: string) => string][] = [
  ['=~', (p) => `from main | where _raw =~ ${literal(p)}`],
  ['!~', (p) => `from main | where _raw !~ ${literal(p)}`],
  ['match()', (p) => `from main | where match(_raw, ${literal(p)})`],
  ['extract()', (p) => `from main | extend x = extract(_raw, ${literal(p)})`],
  ['replace()', (p) => `from main | extend x = replace(_raw, ${literal(p)}, "y")`],
  ['=~ in an aggregate', (p) => `from main | stats countif(_raw =~ ${literal(p)}) by host`],
  ['parse regex', (p) => `from main | parse regex(_raw, ${literal(`(?<g>${p})`)})`],
];

describe('api: query errors', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    // Long enough for a like pattern RE2 finds too large.
    // The events carry fixed 2023 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { 'query.max_query_length': 300_000, retention: '3650d' } });
    // One event per bad pattern, as its _raw and host, for the places where patterns are literal text.
    const ingest = await postJson(
      `${server.api}/ingest`,
      BAD_PATTERNS.map((p) => ({ event: p, host: p, time: 1_700_000_000 })),
    );
    assert.deepEqual(ingest.body, { data: { accepted: BAD_PATTERNS.length, failed: 0 } });
  });

  after(async () => {
    await dispose(server);
  });

  const query = (q: string) => postJson(`${server.api}/query`, { q, from: '2023-01-01T00:00:00Z' });
  const explain = (q: string) => request(`${server.api}/query/explain?q=${encodeURIComponent(q)}`);

  it('GET /query/explain lists each error with the fields of the INVALID_QUERY error object', async () => {
    const cases: [string, number][] = [
      ['from main | wher x', 1],
      ['from main | where x = "abc', 1],
      ['from main | wher x | where lowr(y) = 1 | head 0', 3],
    ];
    for (const [q, count] of cases) {
      const answer = await query(q);
      assert.equal(answer.status, 400, answer.text);
      const { code, ...fields } = answer.body.error;
      assert.equal(code, 'INVALID_QUERY');
      if (q.length > 8000) return;
      const explained = await explain(q);
      assert.equal(explained.status, 200, explained.text);
      assert.equal(explained.body.data.is_valid, false);
      const errors = explained.body.data.errors as Record<string, unknown>[];
      assert.equal(errors.length, count, explained.text);
      for (const error of errors) assert.deepEqual(Object.keys(error).sort(), ERROR_FIELDS, explained.text);
      assert.deepEqual(errors[0], fields, `${q}: explain's first error is the query's error`);
    }
  });

  it('every query error carries a suggestion string, in POST /query and in explain', async () => {
    const cases: [string, string][] = [
      ['from main | where x >', 'add a value after `>`'],
      ['from main | where x = "abc', 'close the string with `"`'],
      ['from main | zzzzzz', 'one of: from, search, where, extend, parse, keep, drop, rename, head, tail, dedup, stats, sort, top'],
      ['from main | where x # 1', 'remove "#", or put it inside a string'],
    ];
    for (const [q, suggestion] of cases) {
      const answer = await query(q);
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.error.suggestion, suggestion, q);
      const explained = await explain(q);
      assert.equal(explained.body.data.errors.length, 1, explained.text);
      assert.equal(explained.body.data.errors[0].suggestion, suggestion, q);
    }
  });

  /** POST /query and GET /query/explain (when `q` fits in a URL) both refuse `q` with E008 at `column`. */
  async function assertE008(q: string, column: number, what: RegExp): Promise<void> {
    const shown = q.length > 200 ? `${q.slice(0, 200)}...` : q;
    const answer = await query(q);
    assert.equal(answer.status, 400, `${shown}: ${answer.text.slice(0, 300)}`);
    const error = answer.body.error;
    assert.equal(error.code, 'INVALID_QUERY', shown);
    assert.equal(error.parse_code, 'E008', `${shown}: ${error.message}`);
    assert.match(error.message, what, shown);
    assert.deepEqual([error.line, error.column], [1, column], `${shown}: the pattern's position`);
    assert.ok(typeof error.suggestion === 'string' && error.suggestion.length > 0, `${shown}: a suggestion`);
    if (q.length > 8000) return;
    const explained = await explain(q);
    assert.equal(explained.status, 200, shown);
    assert.equal(explained.body.data.is_valid, false, shown);
    const first = explained.body.data.errors[0];
    assert.deepEqual([first.parse_code, first.line, first.column], ['E008', 1, column], `${shown}: explain`);
  }

  it('a regex RE2 refuses is 400 E008 at the pattern, at every place a regex is written, and so in explain', async () => {
    let checked = 0;
    for (const pattern of BAD_PATTERNS) {
      for (const [, site] of REGEX_SITES) {
        const q = site(pattern);
        const column = q.indexOf('"') + 1;
        await assertE008(q, column, /^invalid regular expression: /);
        checked++;
      }
    }
    assert.equal(checked, BAD_PATTERNS.length * REGEX_SITES.length);
  });

  it('a parse pattern that cannot run is 400 E008 at the pattern, an unclosed capture too', async () => {
    for (const pattern of ['<ip> <user', '<a><b>', 'no captures', '<a> <a>']) {
      const q = `from main | parse pattern(_raw, ${literal(pattern)})`;
      await assertE008(q, q.indexOf('"') + 1, /^invalid pattern: /);
    }
  });

  it('in like patterns and search globs the same text is literal: each finds what holds it', async () => {
    const count = async (q: string): Promise<number> => {
      const answer = await query(`${q} | stats count()`);
      assert.equal(answer.status, 200, `${q}: ${answer.text.slice(0, 300)}`);
      return answer.body.data.rows[0][0] as number;
    };
    for (const pattern of BAD_PATTERNS) {
      assert.equal(await count(`from main | where _raw like ${literal(pattern)}`), 1, pattern);
      assert.equal(await count(`from main | where _raw not like ${literal(pattern)}`), BAD_PATTERNS.length - 1, pattern);
    }
    // Value globs (`host=...*`) of the patterns a search term can hold (no spaces, quotes or parentheses).
    const terms = BAD_PATTERNS.filter((p) => /^[^\s"'`()|=!-]+$/.test(p));
    assert.ok(terms.length >= 5, terms.join(' '));
    for (const pattern of terms) {
      const expected = BAD_PATTERNS.filter((host) => host.toLowerCase().startsWith(pattern.toLowerCase())).length;
      assert.equal(await count(`from main | search host=${pattern}*`), expected, pattern);
      assert.equal((await query(`from main | search ${pattern}*`)).status, 200, pattern);
    }
  });

  it('a like pattern or search glob too large for RE2 is 400 E008 at the pattern', async () => {
    await assertE008(`from main | search ${'?'.repeat(65_000)}`, 20, /^invalid glob: pattern too large/);
    await assertE008(`from main | search host=${'?'.repeat(100_000)}`, 20, /^invalid glob: pattern too large/);
    await assertE008(`from main | where _raw like ${literal('_'.repeat(200_000))}`, 29, /^invalid like pattern: pattern too large/);
  });
});

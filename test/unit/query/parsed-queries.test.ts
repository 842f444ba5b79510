import { strict as assert } from 'assert';
import { checkQuery, parseQuery, planQuery, QueryError } from '../../../query/stages';
import { MAX_REMEMBERED_TEXT, REMEMBERED_QUERIES } from '../../../query/stages/parsed-queries';

const RANGE = { fromMicros: 0, toMicros: 3_600_000_000, nowMicros: 3_600_000_000 };

describe('parsed queries: a thread parses a text once', () => {
  it('answers the same text with the query parsed before', () => {
    const text = 'from main | where status >= 500 | stats count() by host';
    assert.equal(parseQuery(text), parseQuery(text));
    assert.notEqual(parseQuery(text), parseQuery(`${text} `));
  });

  it('keeps apart variables that give other literals, and shares those that give the same', () => {
    const text = 'from main | where host = $host | head 5';
    const one = parseQuery(text, { host: 'web-1' });
    assert.equal(parseQuery(text, { host: 'web-1' }), one);
    assert.notEqual(parseQuery(text, { host: 'web-2' }), one);
    // JSON writes both NaN and null as null; the literals they give differ, and so do the queries.
    const nan = parseQuery(text, { host: Number.NaN });
    const nil = parseQuery(text, { host: null });
    assert.notEqual(nan, nil);
    assert.equal(JSON.stringify(nan.stages[1]).includes('"NaN"'), true);
    assert.equal(JSON.stringify(nil.stages[1]).includes('"null"'), true);
    // An unused variable does not change the text parsed.
    assert.equal(parseQuery(text, { host: 'web-1', other: 1 }), one);
  });

  it('never remembers a failure: an unknown variable is refused every time', () => {
    const text = 'from main | where host = $host';
    assert.equal(parseQuery(text, { host: 'a', extra: undefined }).stages.length, 2);
    for (let i = 0; i < 2; i++) {
      const checked = checkQuery(text, { extra: 1 });
      assert.equal(checked.ok, false);
      assert.ok(!checked.ok && checked.errors[0] instanceof QueryError && checked.errors[0].code === 'E014');
    }
  });

  it('hands out a frozen query, which planning leaves as it was', () => {
    const text = 'from main | where level = "error" and path =~ "^/api" | extend slow = duration_ms > 500 | top 10 path';
    const query = parseQuery(text);
    const before = JSON.stringify(query);
    assert.ok(Object.isFrozen(query) && Object.isFrozen(query.stages) && Object.isFrozen(query.stages[1]));
    assert.throws(() => {
      (query.stages as unknown as unknown[]).push(query.stages[0]);
    }, TypeError);
    planQuery(query, RANGE);
    planQuery(query, RANGE);
    assert.equal(JSON.stringify(query), before);
  });

  it('parses a text longer than MAX_REMEMBERED_TEXT each time', () => {
    const long = `from main | where ${Array.from({ length: MAX_REMEMBERED_TEXT / 8 }, (_, i) => `a = ${i}`).join(' or ')}`;
    assert.ok(long.length > MAX_REMEMBERED_TEXT);
    assert.notEqual(parseQuery(long), parseQuery(long));
  });

  it('forgets the least recently used text past REMEMBERED_QUERIES', () => {
    const first = 'from main | where marker = "first"';
    const kept = parseQuery(first);
    for (let i = 0; i < REMEMBERED_QUERIES; i++) parseQuery(`from main | where filler = ${i}`);
    assert.notEqual(parseQuery(first), kept);
    // Read again, a text stays.
    const again = parseQuery(first);
    for (let i = 0; i < REMEMBERED_QUERIES - 1; i++) {
      parseQuery(`from main | where other = ${i}`);
      assert.equal(parseQuery(first), again);
    }
  });
});

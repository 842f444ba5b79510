import { strict as assert } from 'assert';
import fc from 'fast-check';
import { checkQuery, type QueryError } from '../../../query/stages';
import { tokenize } from '../../../query/stages/language';
import { assertError } from './helpers';
import { SAMPLES } from './samples';

/** Words a mutation inserts: stage names, operators, literals, brackets, quotes, junk. */
const INSERTS = [
  'from',
  'where',
  'stats',
  'parse',
  'head',
  'sort',
  'by',
  'as',
  'and',
  'or',
  'not',
  'in',
  'like',
  '=~',
  '=',
  '>',
  '<=',
  '+',
  '*',
  '(',
  ')',
  ',',
  '|',
  '"',
  "'",
  '`',
  '"a(',
  '5m',
  '5min',
  '1.5h',
  '10.0.0.1',
  'count()',
  'p99',
  'lower',
  'x',
  '#',
  '$x',
  '&&',
  '||',
  '-',
  '1e999',
  '"\\u12"',
  'regex',
  'jsn',
  '(?=a)',
  '{',
  '}',
];

/** A valid sample cut short, with a token deleted, or with a word inserted or put in a token's place. */
const mutated = fc
  .tuple(fc.constantFrom(...SAMPLES), fc.constantFrom('truncate', 'delete', 'insert', 'replace'), fc.nat(), fc.constantFrom(...INSERTS))
  .map(([sample, how, at, word]) => {
    if (how === 'truncate') return sample.slice(0, at % (sample.length + 1));
    const tokens = tokenize(sample);
    const token = tokens[at % tokens.length]!;
    const start = token.pos.offset;
    if (how === 'delete') return sample.slice(0, start) + sample.slice(token.end);
    if (how === 'insert') return `${sample.slice(0, start)}${word} ${sample.slice(start)}`;
    return `${sample.slice(0, start)}${word}${sample.slice(token.end)}`;
  });

/** Every error has a non-empty suggestion and a 1-based line and column inside the text. */
function assertUsable(text: string, errors: readonly QueryError[]): void {
  const lines = text.split('\n');
  for (const error of errors) {
    const where = `${JSON.stringify(text)} -> ${error.code} ${error.line}:${error.column} ${error.message}`;
    assert.equal(typeof error.suggestion, 'string', where);
    assert.ok(error.suggestion.trim().length > 0, `empty suggestion: ${where}`);
    assert.ok(error.line >= 1 && error.line <= lines.length, `line outside the text: ${where}`);
    assert.ok(error.column >= 1 && error.column <= lines[error.line - 1]!.length + 1, `column outside its line: ${where}`);
    assert.equal(error.toJSON().suggestion, error.suggestion, where);
  }
}

describe('query syntax: every error has a suggestion', function () {
  this.timeout(120_000);

  it('mutated valid queries: each error suggests something, at a position inside the text (property)', () => {
    let failures = 0;
    fc.assert(
      fc.property(mutated, (text) => {
        const result = checkQuery(text);
        if (result.ok) return;
        assert.ok(result.errors.length > 0);
        failures++;
        assertUsable(text, result.errors);
      }),
      { numRuns: 4000 },
    );
    // The property says something only if many mutations are errors.
    assert.ok(failures > 1000, `only ${failures} of 4000 mutations were errors`);
  });

  it('says how to complete a query that stops early', () => {
    assert.equal(assertError('from main | where x >', 'E001', 1, 22).suggestion, 'add a value after `>`');
    assert.equal(assertError('from main | where x > 1 and', 'E001', 1, 28).suggestion, 'add a value after `and`');
    assert.equal(assertError('from main | where', 'E001', 1, 18).suggestion, 'add an expression after `where`');
    assert.equal(assertError('from main | head 5 |', 'E001', 1, 21).suggestion, 'add a stage name after `|`');
    assert.equal(assertError('from main | top', 'E001', 1, 16).suggestion, 'add a field name or a number after `top`');
  });

  it('names what was expected where a token does not fit', () => {
    assert.equal(assertError('from main | extend x 1', 'E001', 1, 22).suggestion, 'write "=" here');
    assert.equal(assertError('from main | where | head', 'E001', 1, 19).suggestion, 'write an expression here');
    assert.equal(assertError('from main | where a || b', 'E001', 1, 22).suggestion, 'or');
    assert.equal(assertError('from main | where a && b', 'E001', 1, 21).suggestion, 'and');
    assert.match(assertError('from main | | head', 'E001', 1, 13).suggestion, /^write a stage name here: from, search, where/);
    assert.equal(assertError('from main | where x # 1', 'E001', 1, 21).suggestion, 'remove "#", or put it inside a string');
    assert.equal(assertError('from main | where café = 1', 'E001', 1, 22).suggestion, 'write the name in backticks: `name`');
    assert.equal(assertError('from main | keep 1abc', 'E001', 1, 18).suggestion, '`1abc`');
    assert.equal(assertError('from main | where `` = 1', 'E001', 1, 19).suggestion, 'write the field name between the backticks: `name`');
  });

  it('closes strings and names, fixes durations and numbers', () => {
    assert.equal(assertError('from main | where x = "abc', 'E007', 1, 23).suggestion, 'close the string with `"`');
    assert.equal(assertError("from main | where x = 'abc", 'E007', 1, 23).suggestion, "close the string with `'`");
    assert.equal(assertError('from main | where `user agent = 1', 'E007', 1, 19).suggestion, 'close the name with a backtick: `name`');
    assert.equal(assertError('from main | where _time > now() - 1.5h', 'E009', 1, 35).suggestion, '90m');
    assert.equal(assertError('from main | where _time > now() - 2hours', 'E009', 1, 35).suggestion, '2h');
    assert.match(assertError('from main | where _time > now() - 3months', 'E009', 1, 35).suggestion, /e\.g\. 30d/);
    assert.equal(assertError('from main | where x > 1e999', 'E001', 1, 23).suggestion, '"1e999"');
  });

  it('offers the known names when none is near', () => {
    assert.equal(
      assertError('from main | parse xml(_raw)', 'E013', 1, 19).suggestion,
      'one of: json, kv, logfmt, regex, pattern, combined, clf, syslog',
    );
    assert.equal(assertError('from main | where host = $hots', 'E014', 1, 26, { host: 'a' }).suggestion, '$host');
    assert.match(assertError('from main | where host = $zzz', 'E014', 1, 26, { host: 'a' }).suggestion, /give \$zzz a value/);
    assert.equal(assertError('from main | where host = ${host', 'E014', 1, 26, { host: 'a' }).suggestion, '${host}');
    assert.match(assertError('from main | where host = a$host', 'E014', 1, 27, { host: 'a' }).suggestion, /^put a space before \$host/);
    assert.equal(
      assertError('from main | stats count() by host | where avg(ms) > 1', 'E010', 1, 43).suggestion,
      'add avg(ms) to the preceding stats (it computes count())',
    );
    assert.equal(assertError('from main | stats host', 'E010', 1, 19).suggestion, 'count() by host');
    assert.equal(assertError('from main | stats lower(host)', 'E010', 1, 19).suggestion, 'count() by lower(host)');
    assert.equal(assertError('from main | stats count() as n, avg(x) as n', 'E001', 1, 43).suggestion, 'n_2');
    assert.match(assertError('from main | where frobnicate(x) = 1', 'E004', 1, 19).suggestion, /^one of: lower, upper, len/);
    assert.match(assertError('from main | stats frobnicate(x)', 'E004', 1, 19).suggestion, /^one of: count, /);
  });

  it('says how to fix a pattern', () => {
    assert.equal(assertError('from main | where x =~ "[z-a]"', 'E008', 1, 24).suggestion, 'write each range low to high, e.g. [a-z]');
    assert.match(assertError('from main | where x =~ "(a)\\1"', 'E008', 1, 24).suggestion, /repeat the group's pattern/);
    assert.equal(assertError('from main | parse regex(msg, "no groups")', 'E008', 1, 30).suggestion, '"(?<value>no groups)"');
    assert.equal(
      assertError('from main | parse pattern(_raw, "<a><b>")', 'E008', 1, 33).suggestion,
      'put the text that separates them between the captures, e.g. <a> <b>',
    );
  });
});

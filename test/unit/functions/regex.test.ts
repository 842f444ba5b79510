import { strict as assert } from 'assert';
import fc from 'fast-check';
import RE2 from 're2';
import { regexGroups, replacementText, requiredLiteral, UserRegex } from '../../../query/functions/regex';
import { FunctionArgumentError } from '../../../query/functions/types';
import { make, withConst } from './helpers';

function throwsArg(f: () => unknown, code: 'E005' | 'E008', argument: number): void {
  assert.throws(f, (e: unknown) => e instanceof FunctionArgumentError && e.code === code && e.argument === argument);
}

describe('functions: regular expressions (RE2)', () => {
  it('match: unanchored, boolean, null in null out', () => {
    const m = withConst('match', 2, 1, '^err(or)?\\b');
    assert.equal(m.resultType, 'boolean');
    assert.equal(m.call(['error: x', '^err(or)?\\b']), true);
    assert.equal(m.call(['an error', '^err(or)?\\b']), false);
    assert.equal(m.call([null, '']), null);
    assert.equal(withConst('match', 2, 1, '\\d{3}').call([12345, '']), true, 'numbers as text');
    assert.equal(withConst('match', 2, 1, '(?i)TIMEOUT').call(['read timeout', '']), true, 'inline flags');
    assert.equal(withConst('match', 2, 1, '').call(['', '']), true);
  });

  it('bad or non-constant regexes fail at plan time', () => {
    throwsArg(() => withConst('match', 2, 1, '(a'), 'E008', 1);
    throwsArg(() => withConst('match', 2, 1, '(?=a)'), 'E008', 1);
    throwsArg(() => withConst('extract', 2, 1, 'a{2000}'), 'E008', 1);
    throwsArg(() => withConst('replace', 3, 1, '[z-a]'), 'E008', 1);
    throwsArg(() => make('match', ['any', 'any']), 'E005', 1);
    throwsArg(() => withConst('match', 2, 1, 5), 'E005', 1);
  });

  it('extract: group 1 by default, whole match without groups, numbered and named groups', () => {
    const s = 'user=bob id=42';
    assert.equal(withConst('extract', 2, 1, 'user=(\\w+)').call([s, null]), 'bob');
    assert.equal(withConst('extract', 2, 1, 'id=\\d+').call([s, null]), 'id=42');
    assert.equal(withConst('extract', 2, 1, 'nomatch(\\d)').call([s, null]), null);
    const numbered = make('extract', ['any', 'string', 'number'], [undefined, '(\\w+)=(\\w+) (\\w+)=(\\d+)', 2]);
    assert.equal(numbered.call([s, null, 2]), 'bob');
    const zero = make('extract', ['any', 'string', 'number'], [undefined, 'id=(\\d+)', 0]);
    assert.equal(zero.call([s, null, 0]), 'id=42');
    const named = make('extract', ['any', 'string', 'string'], [undefined, 'id=(?P<id>\\d+)', 'id']);
    assert.equal(named.call([s, null, 'id']), '42', 'a capture stays text');
    const optional = make('extract', ['any', 'string', 'number'], [undefined, 'a(x)?b', 1]);
    assert.equal(optional.call(['ab', null, 1]), null, 'a group that did not take part');
    assert.equal(withConst('extract', 2, 1, '(\\w+)').call([null, null]), null);
    throwsArg(() => make('extract', ['any', 'string', 'number'], [undefined, '(a)', 2]), 'E005', 2);
    throwsArg(() => make('extract', ['any', 'string', 'string'], [undefined, '(?<a>x)', 'b']), 'E005', 2);
    // A group computed per row.
    const dynamic = make('extract', ['any', 'string', 'any'], [undefined, '(?<k>\\w+)=(\\d+)', undefined]);
    assert.equal(dynamic.call(['a=1', null, 'k']), 'a');
    assert.equal(dynamic.call(['a=1', null, 2]), '1');
    assert.equal(dynamic.call(['a=1', null, 9]), null);
    assert.equal(dynamic.call(['a=1', null, true]), null);
    assert.equal(dynamic.call(['a=1', null, null]), null);
  });

  it('replace: global, $1 / ${1} / $<name> / ${name} / $& / $$', () => {
    const r = (re: string, w: string, s: string): unknown =>
      make('replace', ['any', 'string', 'string'], [undefined, re, w]).call([s, re, w]);
    assert.equal(r('(\\w)-(\\d)', '$2$1', 'a-1 b-2'), '1a 2b');
    assert.equal(r('(\\w)-(\\d)', '${2}0', 'a-1'), '10');
    assert.equal(r('(?P<k>\\w)-(?P<v>\\d)', '${v}=${k}', 'a-1 b-2'), '1=a 2=b');
    assert.equal(r('(?<k>\\w)', '<$<k>>', 'ab'), '<a><b>');
    assert.equal(r('\\d+', '[$&]', 'a1b22'), 'a[1]b[22]');
    assert.equal(r('\\d', '$$', 'a1'), 'a$');
    assert.equal(r('x', 'y', 'abc'), 'abc');
    assert.equal(r('', '-', 'ab'), '-a-b-');
    const again = make('replace', ['any', 'string', 'string'], [undefined, 'a', 'b']);
    assert.equal(again.call(['aXa', 'a', 'b']), 'bXb');
    assert.equal(again.call(['aXa', 'a', 'b']), 'bXb', 'no lastIndex state between rows');
    assert.equal(again.call([null, 'a', 'b']), null);
    const dynamic = make('replace', ['any', 'string', 'any'], [undefined, '(\\d)', undefined]);
    assert.equal(dynamic.call(['a1', null, '<${1}>']), 'a<1>');
    assert.equal(dynamic.call(['a1', null, null]), null);
    assert.equal(dynamic.call(['a1', null, 7]), 'a7');
    assert.equal(make('replace', ['any', 'string', 'any'], [undefined, 'a', null]).call(['a', null, null]), null);
  });

  it('helpers: group counting and replacement rewriting', () => {
    assert.deepEqual(regexGroups('(a)(?:b)(?P<x>c)(?<y>d)[(]\\(e(?i)'), { count: 3, names: ['x', 'y'] });
    assert.deepEqual(regexGroups('[]()](x)'), { count: 1, names: [] });
    assert.equal(replacementText('${a}-${12}-$1-${'), '$<a>-$12-$1-${');
  });

  it('literal prefilter: the longest literal every match contains', () => {
    const cases: Array<[string, string | null]> = [
      ['timeout', 'timeout'],
      ['user=(\\w+)', 'user='],
      ['^GET /api/v\\d+/items', 'GET /api/v'],
      ['status=20[0-2]', 'status=20'],
      ['a|b', null],
      ['(?i)error', null],
      ['(?s)a.b', null],
      ['\\Qa.b\\E', null],
      ['colou?r', 'colo'],
      ['ab{2}c', 'a'],
      ['x+y', 'y'],
      ['\\.\\*lit', '.*lit'],
      ['(?P<n>abc)def', 'def'],
      ['(?:abc)?de', 'de'],
      ['[|]abc', 'abc'],
      ['\\pLxyz', 'xyz'],
      ['\\x41bcd', 'bcd'],
      ['\\p{Greek}ab', 'ab'],
      ['\\wb{1,}?', null],
      ['\\012ab', 'ab'],
      ['caf\u00e9s', 'caf'],
      ['.*', null],
      ['', null],
      ['\\d{3}-\\d{4}', '-'],
    ];
    for (const [p, lit] of cases) assert.equal(requiredLiteral(p), lit, p);
    // Whatever the pattern, a text RE2 matches contains the literal.
    const token = fc.constantFrom(
      'a',
      'b',
      'ab',
      'ba',
      '.',
      '\\.',
      '(a|b)',
      '[ab]',
      '[^a]',
      'a?',
      'b*',
      'c+',
      'a{2}',
      'b{1,}?',
      '^',
      '$',
      '\\d',
      '(?:ab)+',
      '(?P<g>b)',
      '|',
      'x',
      '\\bc',
      '(a(b)?)*',
      '[a-c]+',
      '\\w',
      '\\-',
      '{',
      '}',
      ',',
      '1',
      '\\x61',
      '\\pL',
      '\\p{L}',
      '\\141',
      '\\x{62}',
    );
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 8 }),
        fc.array(fc.constantFrom('a', 'b', 'c', '.', 'x', '1', '-', ' '), { maxLength: 12 }),
        (tokens, chars) => {
          const source = tokens.join('');
          let re: RE2;
          try {
            re = new RE2(source);
          } catch {
            return;
          }
          const text = chars.join('');
          const lit = requiredLiteral(source);
          if (re.test(text))
            assert.ok(lit === null || text.includes(lit), `${source} matches ${JSON.stringify(text)} without ${String(lit)}`);
          assert.equal(new UserRegex(source, 1).test(text), re.test(text), source);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('a catastrophic pattern runs in linear time', () => {
    const m = withConst('match', 2, 1, '(a+)+$');
    const x = withConst('extract', 2, 1, '(a|aa)+b');
    const text = `${'a'.repeat(100_000)}!`;
    const start = Date.now();
    assert.equal(m.call([text, null]), false, '$ needs the end of the text, which is "!"');
    assert.equal(x.call([text, null]), null);
    assert.ok(Date.now() - start < 1000, `took ${Date.now() - start} ms`);
  });
});

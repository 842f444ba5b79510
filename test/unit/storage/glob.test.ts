import { strict as assert } from 'assert';
import fc from 'fast-check';
import { globMatches } from '../../../storage/glob';

/** The reference: the glob as an anchored regex (fine for the short inputs generated here). */
function byRegex(pattern: string, name: string): boolean {
  const body = pattern
    .replace(/[.+^${}()|[\]\\/]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's').test(name);
}

describe('globs over names', () => {
  it('match exactly as the anchored regex of the glob does', () => {
    const char = fc.constantFrom('a', 'b', '.', '-', '*', '?', '\n', 'é');
    const text = fc.array(char, { maxLength: 10 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(
        text,
        text.map((name) => name.replace(/[*?]/g, 'a')),
        (pattern, name) => {
          assert.equal(globMatches(pattern, name), byRegex(pattern, name), `${JSON.stringify(pattern)} ~ ${JSON.stringify(name)}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('takes linear steps on patterns that make a backtracking regex exponential', () => {
    // 2^13 ways to place the stars: a backtracking regex took seconds here, growing with each `a`.
    const pattern = `${'*a'.repeat(13)}*b`;
    const name = 'a'.repeat(5000);
    assert.equal(globMatches(pattern, name), false);
    assert.equal(globMatches(pattern, `${name}b`), true);
  });

  it('handles the edges: empty pattern and name, only stars, a trailing ?', () => {
    assert.equal(globMatches('', ''), true);
    assert.equal(globMatches('', 'a'), false);
    assert.equal(globMatches('***', ''), true);
    assert.equal(globMatches('web-?', 'web-'), false);
    assert.equal(globMatches('web-?', 'web-1'), true);
    assert.equal(globMatches('w*b*', 'web-1'), true);
  });
});

import { strict as assert } from 'assert';
import fc from 'fast-check';
import { parseQuery, QueryError, substituteVariables, variableNames } from '../../../query/stages';
import { assertError, bin, f, noPos, s } from './helpers';

describe('query syntax: variables', () => {
  it('replaces $name and ${name} with quoted string literals', () => {
    assert.equal(substituteVariables('from main | where host = $host', { host: 'web-1' }), 'from main | where host = "web-1"');
    assert.equal(substituteVariables('where a = ${x}y', { x: 'v' }), 'where a = "v"y');
  });

  it('escapes quotes, backslashes and control characters', () => {
    const v = 'a"b\\c\nd\te\u0001';
    const text = substituteVariables('from main | where x = $v', { v });
    assert.equal(text, 'from main | where x = "a\\"b\\\\c\\nd\\te\\u0001"');
    const q = parseQuery('from main | where x = $v', { v });
    assert.deepEqual(noPos(q.stages[1]), { kind: 'where', expr: bin('=', f('x'), s(v)) });
  });

  it('cannot inject query text', () => {
    const q = parseQuery('from main | where x = $v', { v: '" or 1 = 1 | stats count() | head "' });
    assert.equal(q.stages.length, 2);
  });

  it('non-string values go through String()', () => {
    assert.equal(
      substituteVariables('where a = $n and b = $b and c = $z', { n: 5, b: true, z: null }),
      'where a = "5" and b = "true" and c = "null"',
    );
    assert.equal(substituteVariables('where a = $o', { o: Object.create(null) as object }), 'where a = "[object Object]"');
  });

  it('leaves $ inside strings, backtick names and comments alone', () => {
    const text = "from main | where a = \"$x\" and b = '$x\\'$x' and `$x` = 1 -- $x\n| head 1";
    assert.equal(substituteVariables(text, {}), text);
    assert.deepEqual(noPos(parseQuery('from main | where a = "cost: $x"').stages[1]), {
      kind: 'where',
      expr: bin('=', f('a'), s('cost: $x')),
    });
  });

  it('a $ after a name character or before a non-name is not a variable', () => {
    assert.equal(substituteVariables('search US$5 a$b $', {}), 'search US$5 a$b $');
  });

  it('an unknown variable is E014 at its position', () => {
    const e = assertError('from main | where a = $a and b = $nope', 'E014', 1, 34, { a: 1 });
    assert.match(e.message, /unknown variable \$nope; known variables: \$a/);
  });

  it('positions after a substitution point at the original text', () => {
    assertError('from main | where a = $long and lowr(b) = 1', 'E004', 1, 33, { long: 'a much longer value than the name' });
    assertError('from main | where a = $v and', 'E001', 1, 29, { v: 'x' });
    const q = parseQuery('from main | where a = $v and b = 1', { v: 'xxxxxxxxxxxxxxxx' });
    const expr = q.stages[1]!.kind === 'where' ? q.stages[1].expr : null;
    assert.ok(expr?.kind === 'logical');
    assert.deepEqual(expr.operands[1]!.pos, { line: 1, column: 30, offset: 29 });
    const lit = expr.operands[0]!.kind === 'binary' ? expr.operands[0].right : null;
    assert.deepEqual(lit?.pos, { line: 1, column: 23, offset: 22 }, 'an inserted literal is at its $');
  });

  it('variableNames lists the referenced variables once, in order of first use, as substitution sees them', () => {
    assert.deepEqual(variableNames('from main | where a = $b and c = ${a} and d = $b -- $z\n| search "$q" `$r` US$5'), ['b', 'a']);
    assert.deepEqual(variableNames('from main'), []);
  });

  it('variableNames names exactly the variables substitution needs (property)', () => {
    const fragment = fc.oneof(
      fc.constantFrom('from main', ' | where x = ', ' and ', '"', "'", '`', '\\', '--', '\n', '$', '{', '}', ' ', 'US', '$$', '${'),
      fc.constantFrom('a', 'b', 'host', '_x1').map((name) => `$${name}`),
      fc.constantFrom('a', 'b').map((name) => `\${${name}}`),
    );
    fc.assert(
      fc.property(
        fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join('')),
        (text) => {
          const names = variableNames(text);
          const bound = Object.fromEntries(names.map((name) => [name, 'v']));
          substituteVariables(text, bound);
          for (const name of names) {
            const { [name]: _omitted, ...others } = bound;
            assert.throws(
              () => substituteVariables(text, others),
              (e: unknown) => e instanceof QueryError && e.code === 'E014' && e.message.startsWith(`unknown variable $${name}`),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

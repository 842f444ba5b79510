import { strict as assert } from 'assert';
import { AGGREGATE_FUNCTIONS, SCALAR_FUNCTIONS, type Expr } from '../../../query/stages';
import { agg, and, bin, call, f, n, not, ok, or, s, stageOf, whereExpr } from './helpers';

const d = (micros: number): Expr => ({ kind: 'duration', micros }) as Expr;

describe('query syntax: expressions', () => {
  it('literals: strings with escapes, numbers, booleans, null, durations in microseconds', () => {
    assert.deepEqual(whereExpr(`x = "a\\"b\\'c\\\\d\\n\\t\\r\\u00e9"`), bin('=', f('x'), s('a"b\'c\\d\n\t\r\u00e9')));
    assert.deepEqual(whereExpr(`x = 'single "quoted"'`), bin('=', f('x'), s('single "quoted"')));
    assert.deepEqual(whereExpr('x = "\\d+"'), bin('=', f('x'), s('\\d+')), 'unknown escapes keep their backslash');
    assert.deepEqual(
      whereExpr('x = 42 or x = 3.5 or x = 1e6 or x = 2.5E-3'),
      or(bin('=', f('x'), n(42)), bin('=', f('x'), n(3.5)), bin('=', f('x'), n(1e6)), bin('=', f('x'), n(2.5e-3))),
    );
    assert.deepEqual(whereExpr('x = -7'), bin('=', f('x'), n(-7)), 'unary minus folds into the literal');
    assert.deepEqual(
      whereExpr('a = true and b = FALSE and c = Null'),
      and(
        bin('=', f('a'), { kind: 'boolean', value: true } as Expr),
        bin('=', f('b'), { kind: 'boolean', value: false } as Expr),
        bin('=', f('c'), { kind: 'null' } as Expr),
      ),
    );
    const units: Array<[string, number]> = [
      ['500ms', 500e3],
      ['5s', 5e6],
      ['5m', 300e6],
      ['2h', 7200e6],
      ['1d', 86400e6],
      ['1w', 604800e6],
    ];
    for (const [text, micros] of units) assert.deepEqual(whereExpr(`x = ${text}`), bin('=', f('x'), d(micros)), text);
    assert.deepEqual(whereExpr('_time > now() - 1h'), bin('>', f('_time'), bin('-', call('now'), d(3600e6))));
  });

  it('field names: dots, @, colons, dashes between name characters, backticks', () => {
    assert.deepEqual(whereExpr('resource.service.name = @timestamp'), bin('=', f('resource.service.name'), f('@timestamp')));
    assert.deepEqual(whereExpr('k8s:pod = `user agent`'), bin('=', f('k8s:pod'), f('user agent')));
    assert.deepEqual(whereExpr('`and` = `1x`'), bin('=', f('and'), f('1x')));
  });

  it('the "-" rule: part of a name only when no space surrounds it', () => {
    assert.deepEqual(whereExpr('status-code = 1'), bin('=', f('status-code'), n(1)));
    assert.deepEqual(whereExpr('a - b = 1'), bin('=', bin('-', f('a'), f('b')), n(1)));
    assert.deepEqual(whereExpr('a -b = 1'), bin('=', bin('-', f('a'), f('b')), n(1)));
    assert.deepEqual(whereExpr('a- b = 1'), bin('=', bin('-', f('a'), f('b')), n(1)));
    assert.deepEqual(whereExpr('a-(b) = 1'), bin('=', bin('-', f('a'), f('b')), n(1)));
    assert.deepEqual(whereExpr('x = 10-3'), bin('=', f('x'), bin('-', n(10), n(3))), 'numbers are not names');
    assert.deepEqual(whereExpr('x = 5m-1m'), bin('=', f('x'), bin('-', d(300e6), d(60e6))));
  });

  it('keywords are case-insensitive, field names are not', () => {
    assert.deepEqual(whereExpr('A AND b Or NOT c'), or(and(f('A'), f('b')), not(f('c'))));
    assert.deepEqual(
      whereExpr('x IN (1) And y Is Not NULL'),
      and(
        { kind: 'in', operand: f('x'), list: [n(1)], negated: false } as Expr,
        { kind: 'isnull', operand: f('y'), negated: true } as Expr,
      ),
    );
    assert.deepEqual(whereExpr('LOWER(x) = Upper(y)'), bin('=', call('lower', f('x')), call('upper', f('y'))));
  });

  it('comparison operators', () => {
    for (const op of ['=', '!=', '<', '<=', '>', '>=']) assert.deepEqual(whereExpr(`a ${op} 1`), bin(op, f('a'), n(1)), op);
    assert.deepEqual(whereExpr('a == 1'), bin('=', f('a'), n(1)), '== is equality');
    assert.deepEqual(whereExpr('msg =~ "time(out)?"'), {
      kind: 'regex',
      operand: f('msg'),
      pattern: s('time(out)?'),
      negated: false,
    } as Expr);
    assert.deepEqual(whereExpr('msg !~ "^GET"'), { kind: 'regex', operand: f('msg'), pattern: s('^GET'), negated: true } as Expr);
    assert.deepEqual(whereExpr('h in ("a", "b")'), { kind: 'in', operand: f('h'), list: [s('a'), s('b')], negated: false } as Expr);
    assert.deepEqual(whereExpr('h not in ("a")'), { kind: 'in', operand: f('h'), list: [s('a')], negated: true } as Expr);
    assert.deepEqual(whereExpr('u like "/api/%"'), { kind: 'like', operand: f('u'), pattern: s('/api/%'), negated: false } as Expr);
    assert.deepEqual(whereExpr('u not like "a_"'), { kind: 'like', operand: f('u'), pattern: s('a_'), negated: true } as Expr);
    assert.deepEqual(whereExpr('_raw has "timeout"'), { kind: 'has', operand: f('_raw'), term: s('timeout'), negated: false } as Expr);
    assert.deepEqual(whereExpr('_raw not has "x"'), { kind: 'has', operand: f('_raw'), term: s('x'), negated: true } as Expr);
    assert.deepEqual(whereExpr('x is null'), { kind: 'isnull', operand: f('x'), negated: false } as Expr);
    assert.deepEqual(whereExpr('x is not null'), { kind: 'isnull', operand: f('x'), negated: true } as Expr);
  });

  it('arithmetic operators', () => {
    for (const op of ['+', '-', '*', '/', '%']) assert.deepEqual(whereExpr(`a ${op} b`), bin(op, f('a'), f('b')), op);
    assert.deepEqual(whereExpr('-x'), { kind: 'negate', operand: f('x') } as Expr);
  });

  it('precedence: or < and < not < comparison < + - < * / % < unary - < call/field/literal/()', () => {
    assert.deepEqual(whereExpr('a or b and c'), or(f('a'), and(f('b'), f('c'))));
    assert.deepEqual(whereExpr('a and b or c'), or(and(f('a'), f('b')), f('c')));
    assert.deepEqual(whereExpr('not a and b'), and(not(f('a')), f('b')));
    assert.deepEqual(whereExpr('not a = 1'), not(bin('=', f('a'), n(1))));
    assert.deepEqual(whereExpr('a + 1 = b * 2'), bin('=', bin('+', f('a'), n(1)), bin('*', f('b'), n(2))));
    assert.deepEqual(whereExpr('a + b * c'), bin('+', f('a'), bin('*', f('b'), f('c'))));
    assert.deepEqual(whereExpr('a - b - c'), bin('-', bin('-', f('a'), f('b')), f('c')), 'left-associative');
    assert.deepEqual(whereExpr('a / b % c'), bin('%', bin('/', f('a'), f('b')), f('c')));
    assert.deepEqual(whereExpr('-a * b'), bin('*', { kind: 'negate', operand: f('a') } as Expr, f('b')));
    assert.deepEqual(whereExpr('(a + b) * c'), bin('*', bin('+', f('a'), f('b')), f('c')));
    assert.deepEqual(whereExpr('a + 1 in (2, 3)'), {
      kind: 'in',
      operand: bin('+', f('a'), n(1)),
      list: [n(2), n(3)],
      negated: false,
    } as Expr);
    assert.deepEqual(whereExpr('a or (b or c) or d'), or(f('a'), f('b'), f('c'), f('d')), 'and/or chains are flattened');
  });

  it('every scalar function parses with its minimum and maximum arity', () => {
    const argsFor = (name: string, k: number): string => {
      if (name === 'bin') return '_time, 5m';
      if (['match', 'extract', 'replace'].includes(name)) return ['s', '"a(?<g>b)"', '"x"'].slice(0, k).join(', ');
      if (name === 'json_extract') return 's, "$.a.b"';
      return Array.from({ length: k }, (_, i) => `a${i}`).join(', ');
    };
    for (const [name, spec] of Object.entries(SCALAR_FUNCTIONS)) {
      const counts = new Set([spec.min, spec.max === Infinity ? spec.min + 3 : spec.max]);
      for (const k of counts) {
        const e = whereExpr(`${name}(${argsFor(name, k)}) = 1`) as { left: { kind: string; name: string; args: unknown[] } };
        assert.equal(e.left.kind, 'call', name);
        assert.equal(e.left.name, name);
        assert.equal(e.left.args.length, k, name);
      }
    }
  });

  it('every aggregate parses in stats with its arity', () => {
    for (const [name, spec] of Object.entries(AGGREGATE_FUNCTIONS)) {
      const args =
        name === 'percentile' ? 'ms, 99.5' : name === 'countif' ? 'status >= 500' : Array.from({ length: spec.min }, () => 'ms').join(', ');
      const st = stageOf(`stats ${name}(${args})`) as { aggregates: Array<{ call: { kind: string; name: string } }> };
      assert.equal(st.aggregates[0]!.call.kind, 'aggregate', name);
      assert.equal(st.aggregates[0]!.call.name, name);
    }
    assert.deepEqual(
      (stageOf('stats count(user), countif(status >= 500)') as { aggregates: Array<{ call: Expr }> }).aggregates.map((a) => a.call),
      [agg('count', f('user')), agg('countif', bin('>=', f('status'), n(500)))],
    );
  });

  it('function names are case-insensitive and stored lower-case', () => {
    assert.deepEqual(whereExpr('IF(a, 1, 2) = COALESCE(b, c)'), bin('=', call('if', f('a'), n(1), n(2)), call('coalesce', f('b'), f('c'))));
    ok('from m | stats COUNT() as n, P95(ms)');
  });

  it('comments anywhere, including after the last token', () => {
    assert.deepEqual(whereExpr('a = 1 -- the first\n  and -- more\n b = 2 --end'), and(bin('=', f('a'), n(1)), bin('=', f('b'), n(2))));
    assert.deepEqual(whereExpr('a = "--not a comment"'), bin('=', f('a'), s('--not a comment')));
  });
});

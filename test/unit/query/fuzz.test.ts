import { strict as assert } from 'assert';
import fc from 'fast-check';
import { checkQuery, exprToString, parseQuery, QueryError, queryToString, type Expr } from '../../../query/stages';
import { countParses } from '../../../query/stages/language';
import { SourceMap } from '../../../query/syntax/positions';
import { noPos } from './helpers';
import { SAMPLES } from './samples';

/** Per-input time box: synchronous parsing cannot be interrupted, so a slow input fails the property. */
// A hang or a quadratic blow-up takes far longer; a loaded CI machine can take a second or two.
const MAX_MS = 10_000;

/** parseQuery either returns or throws a well-formed QueryError; a valid query round-trips. */
function property(text: string, variables?: Record<string, unknown>): void {
  const start = Date.now();
  let ok = false;
  try {
    parseQuery(text, variables);
    ok = true;
  } catch (e) {
    if (!(e instanceof QueryError)) throw new Error(`not a QueryError for ${JSON.stringify(text)}: ${String(e)}`, { cause: e });
    assert.match(e.code, /^E0(0[1-9]|1[0-4])$/);
    assert.ok(e.line >= 1 && e.column >= 1 && e.offset >= 0 && e.offset <= text.length, `bad position ${e.line}:${e.column}`);
    assert.ok(e.message.length > 0);
    assert.ok(
      typeof e.suggestion === 'string' && e.suggestion.trim().length > 0,
      `no suggestion for ${JSON.stringify(text)}: ${e.message}`,
    );
  }
  const ms = Date.now() - start;
  assert.ok(ms < MAX_MS, `${ms} ms for ${JSON.stringify(text.slice(0, 200))}`);
  if (ok && variables === undefined) {
    const r = checkQuery(text);
    assert.ok(r.ok);
    assert.equal(countParses(text, new SourceMap(text)), 1, `ambiguous: ${text}`);
    const printed = queryToString(r.query);
    const again = checkQuery(printed);
    assert.ok(again.ok, `printed query does not parse: ${printed}`);
    assert.deepEqual(noPos(again.query), noPos(r.query), `round trip: ${text} -> ${printed}`);
  }
}

const VOCABULARY = [
  'from',
  'search',
  'where',
  'extend',
  'parse',
  'keep',
  'drop',
  'rename',
  'head',
  'tail',
  'dedup',
  'stats',
  'sort',
  'top',
  'eval',
  'rex',
  'table',
  'fields',
  'timechart',
  'spath',
  'chart',
  'rare',
  'limit',
  'index',
  'FROM',
  'Where',
  'and',
  'or',
  'not',
  'in',
  'like',
  'has',
  'is',
  'null',
  'true',
  'false',
  'as',
  'by',
  'asc',
  'desc',
  'AND',
  'OR',
  'NOT',
  'main',
  'web-*',
  'host',
  'status',
  'status-code',
  '_raw',
  '_time',
  'a.b',
  '@ts',
  'x',
  'ms',
  '`user agent`',
  '`',
  '``',
  '"str"',
  "'s'",
  '"a\\"b"',
  '"(?<n>\\d+)"',
  '"<a> - <b>"',
  '"',
  "'",
  '"\\u00e9"',
  '"\\u12"',
  '42',
  '3.5',
  '1e6',
  '0',
  '-7',
  '500ms',
  '5m',
  '1h',
  '0s',
  '5min',
  '1.5h',
  '10.0.0.1',
  '=',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '=~',
  '!~',
  '+',
  '-',
  '*',
  '/',
  '%',
  '(',
  ')',
  ',',
  '|',
  '--',
  '#',
  '$x',
  '$',
  '?',
  'count',
  'count()',
  'avg',
  'p99',
  'percentile',
  'bin',
  'lower',
  'if',
  'case',
  'now()',
  'max',
  'foo',
  'json',
  'regex',
  'pattern',
  'kv',
  'jsn',
];

const tokenSequence = fc
  .array(fc.tuple(fc.constantFrom(...VOCABULARY), fc.constantFrom(' ', '', '\n', '  ', ' -- c\n')), { maxLength: 40 })
  .map((parts) => parts.map(([t, sep]) => t + sep).join(''));

const fromPrefixed = tokenSequence.map((s) => `from main | ${s}`);

/** A valid sample with a random edit (insert, delete or replace a slice). */
const mutatedSample = fc
  .tuple(
    fc.constantFrom(...SAMPLES),
    fc.nat(),
    fc.nat({ max: 6 }),
    fc.constantFrom('', ' ', '(', ')', '"', '|', ',', '-', 'x', '`', '5m', 'not'),
  )
  .map(([q, at, del, ins]) => {
    const i = at % (q.length + 1);
    return q.slice(0, i) + ins + q.slice(i + del);
  });

// Random expression ASTs (without positions), in the normal form the parser produces: no directly
// nested same-op and/or, no minus applied to a number literal.
const leaf: fc.Arbitrary<Expr> = fc.oneof(
  fc.constantFrom('host', 'status-code', 'a.b', '@ts', 'user agent', 'and', 'from').map((name) => ({ kind: 'field', name }) as Expr),
  fc
    .oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }))
    .filter((v) => !Object.is(v, -0))
    .map((value) => ({ kind: 'number', value }) as Expr),
  fc.string({ maxLength: 8 }).map((value) => ({ kind: 'string', value }) as Expr),
  fc.constantFrom(1e3, 60e6, 3600e6, -86400e6).map((micros) => ({ kind: 'duration', micros }) as Expr),
  fc.boolean().map((value) => ({ kind: 'boolean', value }) as Expr),
  fc.constant({ kind: 'null' } as Expr),
  fc.constant({ kind: 'call', name: 'now', args: [] } as unknown as Expr),
);

const FUNCTIONS: Array<[string, number]> = [
  ['lower', 1],
  ['len', 1],
  ['concat', 3],
  ['coalesce', 2],
  ['if', 3],
  ['round', 1],
  ['greatest', 2],
  ['pow', 2],
  ['substr', 3],
];

const { expr: randomExpr } = fc.letrec<{ expr: Expr }>((tie) => {
  const sub = tie('expr');
  const notLogical = (op: string) => sub.filter((e) => !(e.kind === 'logical' && e.op === op));
  return {
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc
        .tuple(fc.constantFrom('and', 'or'), fc.array(sub, { minLength: 2, maxLength: 3 }))
        .map(([op, operands]) => ({ kind: 'logical', op, operands }) as Expr)
        .filter((e) => e.kind === 'logical' && e.operands.every((o) => !(o.kind === 'logical' && o.op === e.op))),
      fc
        .tuple(fc.constantFrom('=', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%'), sub, sub)
        .map(([op, left, right]) => ({ kind: 'binary', op, left, right }) as unknown as Expr),
      notLogical('').map((operand) => ({ kind: 'not', operand }) as Expr),
      sub.filter((e) => e.kind !== 'number' && e.kind !== 'duration').map((operand) => ({ kind: 'negate', operand }) as Expr),
      fc
        .tuple(sub, fc.array(sub, { minLength: 1, maxLength: 3 }), fc.boolean())
        .map(([operand, list, negated]) => ({ kind: 'in', operand, list, negated }) as Expr),
      fc
        .tuple(sub, sub, fc.boolean(), fc.boolean())
        .map(
          ([operand, right, negated, like]) =>
            (like ? { kind: 'like', operand, pattern: right, negated } : { kind: 'has', operand, term: right, negated }) as Expr,
        ),
      fc
        .tuple(sub, fc.constantFrom('a+', '^x$', '(?<g>\\d+)', ''), fc.boolean())
        .map(([operand, value, negated]) => ({ kind: 'regex', operand, pattern: { kind: 'string', value }, negated }) as Expr),
      fc.tuple(sub, fc.boolean()).map(([operand, negated]) => ({ kind: 'isnull', operand, negated }) as Expr),
      fc
        .tuple(fc.constantFrom(...FUNCTIONS), fc.array(sub, { minLength: 3, maxLength: 3 }))
        .map(([[name, arity], args]) => ({ kind: 'call', name, args: args.slice(0, arity) }) as unknown as Expr),
    ),
  };
});

describe('query syntax: fuzz', function () {
  this.timeout(120000);

  it('random strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => property(s)),
      { numRuns: 1500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 100 }), (s) => property(`from main | where ${s}`)),
      { numRuns: 500 },
    );
  });

  it('random token sequences from the grammar vocabulary', () => {
    fc.assert(
      fc.property(tokenSequence, (s) => property(s)),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fromPrefixed, (s) => property(s)),
      { numRuns: 3000 },
    );
  });

  it('mutated valid queries', () => {
    fc.assert(
      fc.property(mutatedSample, (s) => property(s)),
      { numRuns: 3000 },
    );
  });

  it('variables with arbitrary values never escape their string literal', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), (v) => {
        const q = parseQuery('from main | where a = $v and b = ${v}', { v });
        assert.equal(q.stages.length, 2);
        property('from main | where a = $v', { v });
      }),
      { numRuns: 1000 },
    );
  });

  it('random expression ASTs: printed with minimal parentheses, they parse back to the same AST', () => {
    fc.assert(
      fc.property(randomExpr, (e) => {
        const text = exprToString(e);
        const q = checkQuery(`from main | where ${text}`);
        assert.ok(q.ok, `${text}: ${q.ok ? '' : q.errors[0]!.message}`);
        const where = q.query.stages[1]!;
        assert.ok(where.kind === 'where');
        assert.deepEqual(noPos(where.expr), e, text);
      }),
      { numRuns: 3000 },
    );
  });

  it('long inputs stay within the time box', () => {
    const long = fc.array(fc.constantFrom(...VOCABULARY), { minLength: 2000, maxLength: 4000 }).map((ts) => `from main | ${ts.join(' ')}`);
    fc.assert(
      fc.property(long, (s) => property(s)),
      { numRuns: 20 },
    );
  });
});

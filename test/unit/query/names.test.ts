import { strict as assert } from 'assert';
import { aggregateColumnNames, exprToString, parseQuery, queryToString, type AggregateCall, type StatsStage } from '../../../query/stages';
import { noPos, ok, whereExpr } from './helpers';

function statsOf(text: string): StatsStage {
  const st = parseQuery(`from main | stats ${text}`).stages[1]!;
  assert.equal(st.kind, 'stats');
  return st as StatsStage;
}

describe('query syntax: names and canonical text', () => {
  it('default aggregate column names', () => {
    const cases: Array<[string, string]> = [
      ['count()', 'count'],
      ['count(user)', 'count_user'],
      ['avg(ms)', 'avg_ms'],
      ['p99(ms)', 'p99_ms'],
      ['percentile(ms, 95)', 'p95_ms'],
      ['percentile(ms, 99.9)', 'p99_9_ms'],
      ['countif(status >= 500)', 'countif'],
      ['sum(a * b)', 'sum'],
      ['dc(`user agent`)', 'dc_user_agent'],
      ['max(resource.ms)', 'max_resource.ms'],
      ['rate()', 'rate'],
    ];
    for (const [call, name] of cases) assert.equal(statsOf(call).aggregates[0]!.name, name, call);
  });

  it('repeated names get _2, _3; aliases are kept; keys come first', () => {
    assert.deepEqual(
      statsOf('avg(ms), avg(ms), avg(ms), count() as n').aggregates.map((a) => a.name),
      ['avg_ms', 'avg_ms_2', 'avg_ms_3', 'n'],
    );
    assert.deepEqual(
      statsOf('count(), count() as count').aggregates.map((a) => a.name),
      ['count_2', 'count'],
    );
    const st = statsOf('count(host) by host, bin(_time, 5m), bin(_time, 1h)');
    assert.deepEqual(
      st.by.map((k) => k.name),
      ['host', '_time', '_time_2'],
    );
    assert.deepEqual(
      st.aggregates.map((a) => a.name),
      ['count_host'],
    );
  });

  it('aggregateColumnNames works over an AST aggregate list', () => {
    const st = statsOf('count(), avg(ms), count() as c, count()');
    assert.deepEqual(aggregateColumnNames(st.aggregates), ['count', 'avg_ms', 'c', 'count_2']);
    const calls: Array<{ call: AggregateCall; alias: string | null }> = st.aggregates.map((a) => ({ call: a.call, alias: null }));
    assert.deepEqual(aggregateColumnNames(calls), ['count', 'avg_ms', 'count_2', 'count_3']);
  });

  it('exprToString: canonical text with minimal parentheses', () => {
    const cases: Array<[string, string]> = [
      ['A AND (b OR c)', 'A and (b or c)'],
      ['(a and b) or c', 'a and b or c'],
      ['NOT (a = 1)', 'not a = 1'],
      ['(not a) = b', '(not a) = b'],
      ['a - (b - c)', 'a - (b - c)'],
      ['(a - b) - c', 'a - b - c'],
      ['-(a + b) * 2', '-(a + b) * 2'],
      ['- -x', '-(-x)'],
      ['x - -5', 'x - -5'],
      ['(a = b) = c', '(a = b) = c'],
      ['a == "x\\"y"', 'a = "x\\"y"'],
      ['LOWER(`user agent`) in ("a", \'b\')', 'lower(`user agent`) in ("a", "b")'],
      ['_time > NOW() - 60m', '_time > now() - 1h'],
      ['x =~ "a\\\\d" or y !~ "b"', 'x =~ "a\\\\d" or y !~ "b"'],
      ['x IS NOT NULL and y is null', 'x is not null and y is null'],
      ['x NOT LIKE "%a" and y HAS "t"', 'x not like "%a" and y has "t"'],
      ['`and` = `a-` and `x y` = 1500ms', '`and` = `a-` and `x y` = 1500ms'],
    ];
    for (const [input, text] of cases) assert.equal(exprToString(whereExpr(input)), text, input);
  });

  it('sort count() desc after stats refers to the count column', () => {
    const q = ok('from main | stats count(), avg(ms) as a by host | sort COUNT() desc, avg( ms )');
    const sort = q.stages[2]!;
    assert.ok(sort.kind === 'sort');
    assert.deepEqual(
      sort.keys.map((k) => (k.expr.kind === 'aggregate' ? k.expr.column : null)),
      ['count', 'a'],
    );
  });

  it('queryToString round-trips: parsing the printed query gives the same AST', () => {
    const queries = [
      'from main, web-*, `odd index` | search "connection reset" OR timeout host=web-* NOT (a b) x!="y"',
      'from * | where status >= 500 and host != "web-3" or not (a in (1, 2, -3)) | parse json(_raw)',
      'from m | extend ms = duration * 1000, `slow one` = ms > 250, d = now() - 1h - 500ms | keep a, b*, `c d` | drop x?',
      'from m | parse regex(msg, "(?<ip>\\\\d+)") | parse pattern(_raw, "<a> - <b>") | rename a as b, `c d` as e',
      'from m | head | tail 3 | dedup a, `b c` | stats count() as n, p99(ms), percentile(ms, 99.9) by host, bin(_time, 5m) as t',
      'from m | stats count() by host | sort count() desc, host | top 3 a, b by c | sort count() asc',
      'from m | where -(-x) = -0.5e-7 and y like "a%" and z not has "q" and w =~ "\\\\w+" and v is not null',
      'from m | stats by lower(host)',
    ];
    for (const text of queries) {
      const q = ok(text);
      const printed = queryToString(q);
      assert.deepEqual(noPos(ok(printed)), noPos(q), `${text}\n${printed}`);
      assert.equal(queryToString(ok(printed)), printed, 'printing is stable');
    }
  });
});

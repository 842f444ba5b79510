import { strict as assert } from 'assert';
import { parseQuery } from '../../../query/stages';
import { agg, and, bin, call, f, n, noPos, s, stageOf, stagesOf } from './helpers';

describe('query syntax: stages', () => {
  it('from: one or more indexes, globs, backticks, every index', () => {
    const q = noPos(parseQuery('from main, web-*, logs-2024.0?, `my index`'));
    assert.deepEqual(q.stages, [{
      kind: 'from',
      indexes: [
        { pattern: 'main', glob: false, quoted: false },
        { pattern: 'web-*', glob: true, quoted: false },
        { pattern: 'logs-2024.0?', glob: true, quoted: false },
        { pattern: 'my index', glob: false, quoted: true },
      ],
    }]);
    assert.deepEqual(noPos(parseQuery('from *').stages[0]), { kind: 'from', indexes: [{ pattern: '*', glob: true, quoted: false }] });
  });

  it('search: terms, phrases, field=value with globs, AND/OR/NOT, implied AND, parentheses', () => {
    assert.deepEqual(stageOf('search "connection reset" OR timeout'), {
      kind: 'search',
      expr: { kind: 'or', operands: [{ kind: 'phrase', text: 'connection reset' }, { kind: 'term', text: 'timeout', glob: false }] },
    });
    const e = stageOf('search error host=web-* NOT (warn OR debug) status!="500"') as { expr: unknown };
    assert.deepEqual(e.expr, {
      kind: 'and',
      operands: [
        { kind: 'term', text: 'error', glob: false },
        { kind: 'fieldmatch', field: 'host', op: '=', value: 'web-*', glob: true, quoted: false },
        { kind: 'not', operand: { kind: 'or', operands: [{ kind: 'term', text: 'warn', glob: false }, { kind: 'term', text: 'debug', glob: false }] } },
        { kind: 'fieldmatch', field: 'status', op: '!=', value: '500', glob: false, quoted: true },
      ],
    });
    // AND binds tighter than OR, as in expressions; explicit AND equals juxtaposition.
    assert.deepEqual((stageOf('search a b OR c AND d') as { expr: unknown }).expr, {
      kind: 'or',
      operands: [
        { kind: 'and', operands: [{ kind: 'term', text: 'a', glob: false }, { kind: 'term', text: 'b', glob: false }] },
        { kind: 'and', operands: [{ kind: 'term', text: 'c', glob: false }, { kind: 'term', text: 'd', glob: false }] },
      ],
    });
    assert.deepEqual((stageOf('search err* `user agent`=curl 192.168.0.1') as { expr: unknown }).expr, {
      kind: 'and',
      operands: [
        { kind: 'term', text: 'err*', glob: true },
        { kind: 'fieldmatch', field: 'user agent', op: '=', value: 'curl', glob: false, quoted: false },
        { kind: 'term', text: '192.168.0.1', glob: false },
      ],
    });
  });

  it('where', () => {
    assert.deepEqual(stageOf('where status >= 500 and host != "web-3"'), {
      kind: 'where', expr: and(bin('>=', f('status'), n(500)), bin('!=', f('host'), s('web-3'))),
    });
  });

  it('extend: several assignments, backtick names', () => {
    assert.deepEqual(stageOf('extend ms = duration * 1000, `slow one` = ms > 250'), {
      kind: 'extend',
      assignments: [
        { name: 'ms', expr: bin('*', f('duration'), n(1000)) },
        { name: 'slow one', expr: bin('>', f('ms'), n(250)) },
      ],
    });
  });

  it('parse: every format, field, optional pattern', () => {
    for (const format of ['json', 'kv', 'logfmt', 'combined', 'clf', 'syslog']) {
      assert.deepEqual(stageOf(`parse ${format}(_raw)`), { kind: 'parse', format, field: { name: '_raw' }, pattern: null });
    }
    assert.deepEqual(stageOf('parse JSON(`body text`)'), { kind: 'parse', format: 'json', field: { name: 'body text' }, pattern: null });
    assert.deepEqual(stageOf('parse regex(msg, "took (?<ms>\\d+)ms")'), {
      kind: 'parse', format: 'regex', field: { name: 'msg' }, pattern: { kind: 'string', value: 'took (?<ms>\\d+)ms' },
    });
    const pattern = '<ip> - <user> [<ts>] \\"<method> <path> <_>\\"';
    assert.deepEqual(stageOf(`parse pattern(_raw, "${pattern}")`), {
      kind: 'parse', format: 'pattern', field: { name: '_raw' }, pattern: { kind: 'string', value: '<ip> - <user> [<ts>] "<method> <path> <_>"' },
    });
  });

  it('keep and drop: names and globs in order', () => {
    assert.deepEqual(stageOf('keep _time, host, http.*, `user agent`'), {
      kind: 'keep',
      fields: [
        { pattern: '_time', glob: false, quoted: false }, { pattern: 'host', glob: false, quoted: false },
        { pattern: 'http.*', glob: true, quoted: false }, { pattern: 'user agent', glob: false, quoted: true },
      ],
    });
    assert.deepEqual(stageOf('drop tmp_*, a?'), {
      kind: 'drop', fields: [{ pattern: 'tmp_*', glob: true, quoted: false }, { pattern: 'a?', glob: true, quoted: false }],
    });
  });

  it('rename: pairs', () => {
    assert.deepEqual(stageOf('rename a as b, `c d` as e'), {
      kind: 'rename', renames: [{ from: { name: 'a' }, to: { name: 'b' } }, { from: { name: 'c d' }, to: { name: 'e' } }],
    });
  });

  it('head and tail: count, default 10', () => {
    assert.deepEqual(stagesOf('head | head 5 | tail | tail 1e3'), [
      { kind: 'head', count: 10 }, { kind: 'head', count: 5 }, { kind: 'tail', count: 10 }, { kind: 'tail', count: 1000 },
    ]);
  });

  it('dedup: fields', () => {
    assert.deepEqual(stageOf('dedup host, `user agent`'), { kind: 'dedup', fields: [{ name: 'host' }, { name: 'user agent' }] });
  });

  it('stats: aggregates with aliases and default names, by keys and bin()', () => {
    assert.deepEqual(stageOf('stats count() as n, p99(ms) by host, bin(_time, 5m) as t'), {
      kind: 'stats',
      aggregates: [
        { call: agg('count'), alias: 'n', name: 'n' },
        { call: agg('p99', f('ms')), alias: null, name: 'p99_ms' },
      ],
      by: [
        { expr: f('host'), alias: null, name: 'host' },
        { expr: call('bin', f('_time'), { kind: 'duration', micros: 300_000_000 } as never), alias: 't', name: 't' },
      ],
    });
    const st = stageOf('stats count(), avg(ms) by bin(_time, 1h), lower(host)') as { aggregates: Array<{ name: string }>; by: Array<{ name: string }> };
    assert.deepEqual(st.by.map((k) => k.name), ['_time', 'lower_host']);
    assert.deepEqual(st.aggregates.map((a) => a.name), ['count', 'avg_ms']);
    assert.deepEqual(stageOf('stats by host'), { kind: 'stats', aggregates: [], by: [{ expr: f('host'), alias: null, name: 'host' }] });
  });

  it('sort: expressions with asc/desc (default asc), aggregate references after stats', () => {
    assert.deepEqual(stageOf('sort n desc, host, len(x) asc'), {
      kind: 'sort',
      keys: [
        { expr: f('n'), direction: 'desc' }, { expr: f('host'), direction: 'asc' },
        { expr: call('len', f('x')), direction: 'asc' },
      ],
    });
    assert.deepEqual(stageOf('sort by n desc'), stageOf('sort n desc'), 'KQL-style "sort by"');
    const [, sort] = stagesOf('stats count(), avg(ms) as a by host | sort count() desc, avg(ms)');
    assert.deepEqual(sort, {
      kind: 'sort',
      keys: [
        { expr: { ...agg('count'), column: 'count' }, direction: 'desc' },
        { expr: { ...agg('avg', f('ms')), column: 'a' }, direction: 'asc' },
      ],
    });
  });

  it('top: N, fields, by fields; default N 10; count() after top', () => {
    assert.deepEqual(stageOf('top 5 host, status by region'), {
      kind: 'top', count: 5, fields: [{ name: 'host' }, { name: 'status' }], by: [{ name: 'region' }],
    });
    assert.deepEqual(stageOf('top uri'), { kind: 'top', count: 10, fields: [{ name: 'uri' }], by: [] });
    const [, sort] = stagesOf('top uri | sort count() asc');
    assert.deepEqual(sort, { kind: 'sort', keys: [{ expr: { ...agg('count'), column: 'count' }, direction: 'asc' }] });
  });

  it('stage names are keywords only at stage position', () => {
    assert.deepEqual(stageOf('where from = "a" and top > 1 and sort = stats'), {
      kind: 'where', expr: and(bin('=', f('from'), s('a')), bin('>', f('top'), n(1)), bin('=', f('sort'), f('stats'))),
    });
    assert.deepEqual(stageOf('keep from, where'), {
      kind: 'keep', fields: [{ pattern: 'from', glob: false, quoted: false }, { pattern: 'where', glob: false, quoted: false }],
    });
  });

  it('the example query of docs/language.md', () => {
    const q = parseQuery(`from main, web-*                       -- one or more indexes; globs allowed
| search "connection reset" OR timeout -- full-text terms and phrases over _raw
| where status >= 500 and host != "web-3"
| parse json(_raw)                     -- structured extraction
| extend ms = duration * 1000, slow = ms > 250
| stats count() as n, p99(ms) by host, bin(_time, 5m) as t
| sort n desc
| head 20`);
    assert.deepEqual(q.stages.map((x) => x.kind), ['from', 'search', 'where', 'parse', 'extend', 'stats', 'sort', 'head']);
    assert.deepEqual(q.stages[2]!.pos, { line: 3, column: 3, offset: q.stages[2]!.pos.offset });
  });
});

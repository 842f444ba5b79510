import { strict as assert } from 'assert';
import { countParses } from '../../../query/stages/language';
import { SourceMap } from '../../../query/syntax/positions';
import { checkQuery, parseQuery } from '../../../query/stages';
import { SAMPLES } from './samples';

/** Wall time of one call, in milliseconds. */
function timed(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

describe('query syntax: grammar', () => {
  it('every sample query parses, validates and has exactly one parse (the grammar is unambiguous)', () => {
    for (const q of SAMPLES) {
      const r = checkQuery(q);
      assert.ok(r.ok, `${q}: ${r.ok ? '' : r.errors.map((e) => e.message).join('; ')}`);
      assert.equal(countParses(q, new SourceMap(q)), 1, q);
    }
  });

  it('unknown and legacy stages parse as one generic stage each', () => {
    for (const q of ['from m | eval x = 1 | frob a "b" (c) , d', 'index=main | timechart span=5m count by host']) {
      assert.equal(countParses(q, new SourceMap(q)), 1, q);
    }
  });

  it('stays fast: a 60-stage query and 60 KB queries', function () {
    this.timeout(60000);
    const stages = ['from main'];
    const kinds = [
      'where a > 1 and b = "x"',
      'extend y = lower(host) + "-" + tostring(status * 2)',
      'search foo bar=baz*',
      'sort x desc, y',
      'head 5',
    ];
    for (let i = 0; i < 59; i++) stages.push(kinds[i % kinds.length]!);
    const sixty = stages.join(' | ');
    parseQuery(sixty); // warm up
    const ms60 = timed(() => parseQuery(sixty));
    assert.ok(ms60 < 250, `60 stages took ${ms60} ms`);
    assert.equal(countParses(sixty, new SourceMap(sixty)), 1);

    const big: Array<[string, string]> = [
      ['or chain', 'from m | where ' + Array.from({ length: 3000 }, (_, i) => `f${i} = ${i}`).join(' or ')],
      ['in list', 'from m | where host in (' + Array.from({ length: 6000 }, (_, i) => `"h${i}"`).join(', ') + ')'],
      ['search terms', 'from m | search ' + Array.from({ length: 8000 }, (_, i) => `t${i}`).join(' ')],
      ['keep list', 'from m | keep ' + Array.from({ length: 8000 }, (_, i) => `f${i}`).join(', ')],
      ['extends', 'from m | extend ' + Array.from({ length: 3000 }, (_, i) => `f${i} = g${i} * 2`).join(', ')],
      ['legacy stage body', 'from m | eval ' + Array.from({ length: 8000 }, (_, i) => `x${i}`).join(' ')],
    ];
    for (const [label, text] of big) {
      assert.ok(text.length >= 45_000 && text.length <= 70_000, `${label}: ${text.length} chars`);
      const ms = timed(() => checkQuery(text));
      assert.ok(ms < 10_000, `${label}: ${text.length} chars took ${ms} ms`);
    }
  });
});

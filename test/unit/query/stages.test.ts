import { strict as assert } from 'assert';
import { parseQuery } from '../../../query/stages';
import { and, bin, f, n, s, stageOf } from './helpers';

describe('query syntax: stages', () => {
  it('stage names are keywords only at stage position', () => {
    assert.deepEqual(stageOf('where from = "a" and top > 1 and sort = stats'), {
      kind: 'where',
      expr: and(bin('=', f('from'), s('a')), bin('>', f('top'), n(1)), bin('=', f('sort'), f('stats'))),
    });
    assert.deepEqual(stageOf('keep from, where'), {
      kind: 'keep',
      fields: [
        { pattern: 'from', glob: false, quoted: false },
        { pattern: 'where', glob: false, quoted: false },
      ],
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
    assert.deepEqual(
      q.stages.map((x) => x.kind),
      ['from', 'search', 'where', 'parse', 'extend', 'stats', 'sort', 'head'],
    );
    assert.deepEqual(q.stages[2]!.pos, { line: 3, column: 3, offset: q.stages[2]!.pos.offset });
  });
});

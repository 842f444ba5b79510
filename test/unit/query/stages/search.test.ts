import { strict as assert } from 'assert';
import { stageOf } from '../helpers';

describe('query stages: search', () => {
  it('search: terms, phrases, field=value with globs, AND/OR/NOT, implied AND, parentheses', () => {
    assert.deepEqual(stageOf('search "connection reset" OR timeout'), {
      kind: 'search',
      expr: {
        kind: 'or',
        operands: [
          { kind: 'phrase', text: 'connection reset' },
          { kind: 'term', text: 'timeout', glob: false },
        ],
      },
    });
    const e = stageOf('search error host=web-* NOT (warn OR debug) status!="500"') as { expr: unknown };
    assert.deepEqual(e.expr, {
      kind: 'and',
      operands: [
        { kind: 'term', text: 'error', glob: false },
        { kind: 'fieldmatch', field: 'host', op: '=', value: 'web-*', glob: true, quoted: false },
        {
          kind: 'not',
          operand: {
            kind: 'or',
            operands: [
              { kind: 'term', text: 'warn', glob: false },
              { kind: 'term', text: 'debug', glob: false },
            ],
          },
        },
        { kind: 'fieldmatch', field: 'status', op: '!=', value: '500', glob: false, quoted: true },
      ],
    });
    // AND binds tighter than OR, as in expressions; explicit AND equals juxtaposition.
    assert.deepEqual((stageOf('search a b OR c AND d') as { expr: unknown }).expr, {
      kind: 'or',
      operands: [
        {
          kind: 'and',
          operands: [
            { kind: 'term', text: 'a', glob: false },
            { kind: 'term', text: 'b', glob: false },
          ],
        },
        {
          kind: 'and',
          operands: [
            { kind: 'term', text: 'c', glob: false },
            { kind: 'term', text: 'd', glob: false },
          ],
        },
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
});

// `search field=value` prunes row blocks by the tokens of its value: every block that holds a
// matching event must pass the bloom check, whatever the value's case, characters or column layout.

import { strict as assert } from 'assert';
import fc from 'fast-check';
import { requiredTokens } from '../../../query/exec/compile-search';
import type { SearchExpr } from '../../../query/syntax/ast';
import type { FieldValue } from '../../../storage/core/event';
import { bloomMayContainAll } from '../../../storage/segment/bloom';
import { rowSetFromEvents } from '../../../storage/segment/row-set';
import { encodeSegment } from '../../../storage/segment/segment-encoder';

const POS = { line: 1, column: 1, offset: 0 };

function fieldIs(field: string, value: string): SearchExpr {
  return { kind: 'fieldmatch', field, op: '=', value, glob: false, quoted: true, pos: POS };
}

const same = (name: string): string => name;

/** True when the one-block segment of these field values passes the bloom check for `f=value`. */
function blockMayMatch(values: FieldValue[], value: string): boolean {
  const events = values.map((v, i) => ({ time: 1_700_000_000_000_000 + i, raw: `line ${i}`, index: 'main', fields: { f: v } }));
  const segment = encodeSegment(rowSetFromEvents(events), { compressionLevel: 1, blockRows: 65536 });
  return bloomMayContainAll(segment.blooms[0], segment.stats.blocks[0].bloom, requiredTokens(fieldIs('f', value), same));
}

describe('search field=value: bloom pruning', () => {
  it('requires the tokens of a text value; numbers and booleans do not prune', () => {
    assert.deepEqual(requiredTokens(fieldIs('host', 'Web-01'), same), ['web', '01']);
    assert.deepEqual(requiredTokens(fieldIs('path', '/api/v1/orders/1381'), same), ['api', 'v1', 'orders', '1381']);
    for (const value of ['500', ' 500 ', '1.5', '-3', 'true', 'FALSE', '-', '']) {
      const tokens = requiredTokens(fieldIs('f', value), same);
      assert.deepEqual(tokens, [], value);
    }
  });

  it('a block with an equal string (any case, any layout) is never pruned', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 16 });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 40 }), fc.nat(), fc.boolean(), (values, at, upper) => {
        const wanted = values[at % values.length];
        const query = upper ? wanted.toUpperCase() : wanted.toLowerCase();
        // Same value case-folded: `search` compares case-insensitively.
        if (query.toLowerCase() !== wanted.toLowerCase()) return;
        assert.ok(blockMayMatch(values, query), `${JSON.stringify(query)} in ${JSON.stringify(values)}`);
      }),
      { numRuns: 300 },
    );
    // Dictionary, template, hex and mixed layouts.
    assert.ok(
      blockMayMatch(
        Array.from({ length: 300 }, (_, i) => `u${i}`),
        'U17',
      ),
    );
    assert.ok(
      blockMayMatch(
        Array.from({ length: 300 }, (_, i) => (i * 2654435761).toString(16).padStart(10, '0').slice(0, 10)),
        (17 * 2654435761).toString(16).padStart(10, '0').slice(0, 10),
      ),
    );
    assert.ok(blockMayMatch(['web-1', 'web-2', 'web-1'], 'WEB-2'));
    assert.ok(blockMayMatch([1, 'Disk Full', true, 2.5], 'disk full'));
  });

  it('a block without the value is pruned', () => {
    assert.equal(
      blockMayMatch(
        Array.from({ length: 300 }, (_, i) => `u${i}`),
        'zanzibar',
      ),
      false,
    );
  });
});

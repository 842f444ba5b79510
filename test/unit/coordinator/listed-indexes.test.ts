/** A query's globs resolved to the index names a coordinator knows, and the check a node makes of that list. */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { checkListedIndexes, hasGlob, listIndexes, unlistedIndexes } from '../../../coordinator/listed-indexes';
import { IndexesUnlistedError } from '../../../coordinator/scatter-gather';
import { AUDIT_INDEX } from '../../../storage/core/event';

const name = fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,12}$/);

describe('listed indexes', () => {
  it('lists every name a pattern spells out, and each known name a glob matches, sorted', () => {
    const known = ['web-1', 'web-2', 'app', AUDIT_INDEX];
    assert.deepEqual(listIndexes(['web-*'], known), ['web-1', 'web-2']);
    assert.deepEqual(listIndexes(['main', 'web-?'], known), ['main', 'web-1', 'web-2'], 'main is placed though nobody reported it');
    assert.deepEqual(listIndexes(['*'], known), ['app', 'web-1', 'web-2'], '`*` is every user index, not the audit log');
    assert.deepEqual(listIndexes(['db-*'], known), []);
    assert.ok(hasGlob(['main', 'web-*']) && hasGlob(['*']) && hasGlob(['web-?']));
    assert.ok(!hasGlob(['main', 'web-1']));
  });

  it('a node holding only listed names, or names the patterns do not match, passes; any other name it holds is told', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 12 }), fc.uniqueArray(name, { maxLength: 12 }), (known, held) => {
        const patterns = ['w*'];
        const listed = listIndexes(patterns, known);
        const expected = held.filter((each) => each.startsWith('w') && !known.includes(each)).sort();
        assert.deepEqual(unlistedIndexes(patterns, listed, held), expected);
        if (expected.length === 0) checkListedIndexes(patterns, listed, held);
        else
          assert.throws(
            () => checkListedIndexes(patterns, listed, held),
            (error: unknown) => error instanceof IndexesUnlistedError && error.indexes.join() === expected.join(),
          );
        // What the coordinator knew passes wherever it is held.
        checkListedIndexes(patterns, listed, known);
      }),
    );
  });

  it('the refusal names the indexes and where they are held', () => {
    const error = new IndexesUnlistedError(['web-3'], 'the node at 127.0.0.1:7001');
    assert.equal(error.code, 'INDEXES_UNLISTED');
    assert.match(error.message, /the node at 127\.0\.0\.1:7001 holds index web-3/);
  });
});

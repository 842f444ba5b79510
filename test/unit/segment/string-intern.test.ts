// The dictionary interner: the same bytes give the same string object and entry id within an
// epoch, other bytes another entry, and a full table starts over under a new epoch.

import { strict as assert } from 'assert';
import fc from 'fast-check';
import { MAX_INTERNED_BYTES, StringInterner } from '../../../storage/segment/string-intern';

function internText(interner: StringInterner, text: string, padding = 3): { value: string; entry: number } {
  // The text sits inside a larger buffer, as an entry sits inside a block's payload.
  const bytes = Buffer.concat([Buffer.alloc(padding, 0x7e), Buffer.from(text), Buffer.alloc(2, 0x7e)]);
  const end = padding + Buffer.byteLength(text);
  const entry = interner.entryOf(bytes, padding, end, 'utf8');
  return { value: entry === -1 ? bytes.toString('utf8', padding, end) : interner.stringAt(entry), entry };
}

describe('StringInterner', () => {
  it('hands back the string of the bytes, one entry per distinct text (random texts, unicode, empty)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 200 }),
        fc.integer({ min: 0, max: 9 }),
        (texts, padding) => {
          const interner = new StringInterner();
          const entries = new Map<string, number>();
          for (const text of texts) {
            const { value, entry } = internText(interner, text, padding);
            assert.equal(value, text);
            assert.equal(interner.stringAt(entry), text);
            if (entries.has(text)) assert.equal(entry, entries.get(text));
            entries.set(text, entry);
          }
          assert.equal(new Set(entries.values()).size, entries.size, 'distinct texts have distinct entries');
          assert.equal(interner.size, entries.size);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('returns the very same string object for bytes seen before', () => {
    const interner = new StringInterner();
    const first = internText(interner, '/api/v1/orders/4711', 0).value;
    const again = internText(interner, '/api/v1/orders/4711', 5).value;
    assert.ok(Object.is(first, again));
    assert.notEqual(internText(interner, '/api/v1/orders/4712').entry, internText(interner, '/api/v1/orders/4711').entry);
  });

  it('does not intern long texts, and starts over under a new epoch when cleared', () => {
    const interner = new StringInterner();
    const long = 'x'.repeat(MAX_INTERNED_BYTES + 1);
    assert.deepEqual(internText(interner, long), { value: long, entry: -1 });
    const epoch = interner.epoch;
    internText(interner, 'a');
    interner.clear();
    assert.notEqual(interner.epoch, epoch);
    assert.equal(interner.size, 0);
    assert.equal(internText(interner, 'b').entry, 0, 'entry ids are reused after a clear');
    assert.notEqual(new StringInterner().epoch, interner.epoch, 'every interner has epochs of its own');
  });

  it('grows past its first table and arena without losing entries', () => {
    const interner = new StringInterner();
    const texts = Array.from({ length: 20_000 }, (_, i) => `/api/v1/users/${i * 7919}/orders`);
    const entries = texts.map((text) => internText(interner, text).entry);
    texts.forEach((text, i) => {
      assert.equal(interner.stringAt(entries[i]), text);
      assert.equal(internText(interner, text).entry, entries[i]);
    });
  });
});

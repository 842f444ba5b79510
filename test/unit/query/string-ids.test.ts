// StringIds and KeyDictionary's string keys against a plain Map, with a fair hash and with one
// that makes every key collide (the table must then hand its keys over and answer the same).

import { strict as assert } from 'assert';
import fc from 'fast-check';
import { KeyDictionary } from '../../../query/exec/key-dictionary';
import { StringIds } from '../../../query/exec/string-ids';
import type { Value } from '../../../query/value';

/** A key list with repeats: short strings from a small alphabet, numbers, booleans and null. */
const keyLists = fc.array(
  fc.oneof(
    fc.string({ unit: fc.constantFrom('a', 'b', '/', '1', 'é', '\u{1F600}'), maxLength: 6 }),
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom(0, -0, NaN, true, false, null),
  ),
  { maxLength: 300 },
);

/** What KeyDictionary.idOf must answer: the first id each key (by Map's SameValueZero) was given. */
function expectedIds(keys: Value[]): number[] {
  const ids = new Map<Value, number>();
  return keys.map((key) => {
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    return id;
  });
}

describe('StringIds', () => {
  it('gives each distinct string one id, the one it was added with, across growth', () => {
    const table = new StringIds();
    const texts = Array.from({ length: 5000 }, (_, i) => `/api/v1/orders/${i % 3700}`);
    const ids = texts.map((text, i) => table.idOf(text, i));
    ids.forEach((id, i) => assert.equal(id, i < 3700 ? i : i - 3700));
    assert.equal(table.size, 3700);
    // Strings made anew (not the same objects) find the same ids.
    assert.equal(table.idOf(['/api/v1/orders/', '12'].join(''), -1), 12);
  });

  it('answers null once a probe runs long, and hands over every key it holds', () => {
    const table = new StringIds(0);
    const answers = Array.from({ length: 60 }, (_, i) => table.idOf(`k${i}`, i));
    const firstNull = answers.indexOf(null);
    assert.ok(firstNull > 0 && firstNull < 60, `a probe past the limit answers null (first null at ${firstNull})`);
    assert.ok(answers.slice(firstNull).every((answer) => answer === null));
    assert.deepEqual(
      table.entries(),
      Array.from({ length: firstNull }, (_, i) => [`k${i}`, i]),
    );
  });
});

describe('KeyDictionary keys', () => {
  for (const [name, make] of [
    ['a fair hash', () => new KeyDictionary()],
    ['every string colliding', () => new KeyDictionary(new StringIds(0))],
  ] as const) {
    it(`idOf gives the ids a Map would (${name})`, () => {
      fc.assert(
        fc.property(keyLists, (keys) => {
          const dictionary = make();
          const expected = expectedIds(keys);
          assert.deepEqual(
            keys.map((key) => dictionary.idOf(key)),
            expected,
          );
          // Asked again, every key keeps its id.
          assert.deepEqual(
            keys.map((key) => dictionary.idOf(key)),
            expected,
          );
        }),
      );
    });

    it(`a partial adopted without lookups is found by later keys (${name})`, () => {
      fc.assert(
        fc.property(fc.uniqueArray(fc.string({ maxLength: 5 }), { maxLength: 80 }), keyLists, (adopted, later) => {
          const dictionary = make();
          adopted.forEach((key, i) => assert.equal(dictionary.appendDistinct(key), i));
          const expected = expectedIds([...adopted, ...later]).slice(adopted.length);
          assert.deepEqual(
            later.map((key) => dictionary.idOf(key)),
            expected,
          );
        }),
      );
    });
  }

  it('keeps every id when its string table gives up (keys colliding past the probe limit)', () => {
    const dictionary = new KeyDictionary(new StringIds(0));
    const keys = Array.from({ length: 120 }, (_, i) => `/api/v1/orders/${i}`);
    assert.deepEqual(
      keys.map((key) => dictionary.idOf(key)),
      keys.map((_, i) => i),
    );
    // The same strings made anew, in another order, after the table moved its keys to a Map.
    const again = [...keys].reverse().map((key) => key.split('/').join('/'));
    assert.deepEqual(
      again.map((key) => dictionary.idOf(key)),
      keys.map((_, i) => 119 - i),
    );
  });

  it('refuses a partial whose keys repeat, once another origin asks', () => {
    const dictionary = new KeyDictionary();
    dictionary.appendDistinct('a');
    dictionary.appendDistinct('a');
    assert.throws(() => dictionary.idOf('b'), /a key repeats within one partial/);
  });
});

// The per-thread cache of decompressed block payloads: a named block decodes, from the cache,
// exactly as an unnamed copy decodes without it, however often and in whatever mix of readers;
// no reader's writes reach a cached payload; dictionary state kept with a payload survives
// interner restarts; the budget bounds what is kept.

import { strict as assert } from 'assert';
import fc from 'fast-check';
import { valueAt, type Column } from '../../../storage/core/column';
import {
  ColumnEncoding,
  decodeColumnBlock,
  decodeColumnBlockRows,
  encodeColumnBlock,
  readBlockHeader,
} from '../../../storage/segment/column-codec';
import { selectPacked } from '../../../storage/segment/packed-select';
import { nameBlock, payloadCacheCounters, setPayloadCacheBytes } from '../../../storage/segment/payload-cache';
import { dictionaryInterner } from '../../../storage/segment/string-intern';

type Value = string | number | boolean | null;

function sameAt(actual: Column, expected: Column, rows: Iterable<number>, context: string): void {
  for (const row of rows) assert.deepEqual(valueAt(actual, row), valueAt(expected, row), `${context}: row ${row}`);
}

/** Interned ids handed out with a dictionary column name its strings (when of the current epoch). */
function assertInternedIds(column: Column, rows: readonly number[]): void {
  if (column.kind !== 'dict' || column.interned === undefined || column.interned.epoch !== dictionaryInterner.epoch) return;
  for (const row of rows) {
    const code: number = column.codes[row];
    const id: number = column.interned.ids[code];
    if (code !== 0 && id >= 0) assert.equal(dictionaryInterner.stringAt(id), column.dict[code]);
  }
}

const columnValues: fc.Arbitrary<Value[]> = fc.oneof(
  // A high-cardinality dictionary (paths) and a few-valued one.
  fc.array(
    fc.oneof(
      fc.nat(400).map((v) => `/api/v1/orders/${v}`),
      fc.constant(null),
    ),
    { minLength: 1, maxLength: 1500 },
  ),
  fc.array(fc.oneof(fc.constantFrom('info', 'warn', 'error', 'dé', '😀'), fc.constant(null)), { minLength: 1, maxLength: 500 }),
  fc.array(fc.oneof(fc.integer({ min: 100, max: 600 }), fc.constant(null)), { minLength: 1, maxLength: 1500 }),
  fc.array(fc.double({ noNaN: true }), { minLength: 1, maxLength: 300 }),
  fc.array(fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.boolean(), fc.constant(null)), { minLength: 1, maxLength: 300 }),
  fc.array(fc.boolean(), { minLength: 1, maxLength: 300 }),
);

describe('payload cache', () => {
  afterEach(() => setPayloadCacheBytes(0));

  it('a named block decodes from the cache as an unnamed copy decodes without it (property)', () => {
    const seen = new Set<ColumnEncoding>();
    fc.assert(
      fc.property(
        columnValues,
        fc.array(fc.array(fc.nat(), { maxLength: 60 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (values, rowSets, restart) => {
          setPayloadCacheBytes(64 * 1024 * 1024);
          const block = encodeColumnBlock(values, 0, values.length, 1).data;
          seen.add(readBlockHeader(block).encoding);
          nameBlock(block, 'seg/0/field');
          const expected = decodeColumnBlock(Buffer.from(block));
          const all = values.map((_, i) => i);
          for (const wanted of rowSets) {
            const rows = [...new Set(wanted.map((w) => w % values.length))].sort((a, b) => a - b);
            // Readers in turn, each twice: a cached payload must come back as it went in.
            for (let pass = 0; pass < 2; pass++) {
              if (restart && pass === 1) dictionaryInterner.clear();
              const some = decodeColumnBlockRows(block, rows);
              sameAt(some, expected, rows, 'listed rows');
              assertInternedIds(some, rows);
              const whole = decodeColumnBlock(block);
              sameAt(whole, expected, all, 'whole block');
              // A whole decode owns its memory: scribbling over it must not reach the cache.
              if (whole.kind === 'number' || whole.kind === 'time') whole.values.fill(-7);
              if (whole.kind === 'dict') whole.codes.fill(0);
              if (readBlockHeader(block).encoding === ColumnEncoding.NumberPacked) {
                const sel = Uint32Array.from(rows);
                const kept = selectPacked(block, '>=', 300, sel, rows.length, 0) as number;
                const expectedKept = rows.filter((row) => {
                  const value = valueAt(expected, row);
                  return typeof value === 'number' && value >= 300;
                });
                assert.deepEqual([...sel.subarray(0, kept)], expectedKept);
              }
            }
          }
          sameAt(decodeColumnBlock(block), expected, all, 'after every reader');
        },
      ),
      { numRuns: 300 },
    );
    for (const encoding of [
      ColumnEncoding.Dict,
      ColumnEncoding.NumberPacked,
      ColumnEncoding.NumberFloat,
      ColumnEncoding.Mixed,
      ColumnEncoding.Boolean,
    ]) {
      assert.ok(seen.has(encoding), `encodings seen: ${[...seen].join(', ')}`);
    }
  });

  it('counts hits for named blocks only, and keeps nothing with a budget of 0', () => {
    const values = Array.from({ length: 4000 }, (_, i) => `/api/v1/users/${i % 900}`);
    const block = encodeColumnBlock(values, 0, values.length, 3).data;
    setPayloadCacheBytes(0);
    nameBlock(block, 'a/0/path');
    const off = payloadCacheCounters();
    decodeColumnBlockRows(block, [1, 2]);
    decodeColumnBlockRows(block, [1, 2]);
    assert.equal(payloadCacheCounters().hits, off.hits, 'off: no hits');

    setPayloadCacheBytes(1024 * 1024);
    const before = payloadCacheCounters();
    decodeColumnBlockRows(block, [1, 2]); // not named since the cache came on
    nameBlock(block, 'a/0/path');
    decodeColumnBlockRows(block, [1, 2]);
    decodeColumnBlockRows(block, [3, 900]);
    decodeColumnBlock(block);
    const after = payloadCacheCounters();
    assert.equal(after.misses - before.misses, 1);
    assert.equal(after.hits - before.hits, 2);
    assert.equal(after.entries, 1);
    assert.ok(after.bytes > 0);
  });

  it('keeps payloads within its budget, least recently used out first', () => {
    const blocks = Array.from({ length: 6 }, (_, b) => {
      const values = Array.from({ length: 3000 }, (_, i) => `/b${b}/item/${i}`);
      const block = encodeColumnBlock(values, 0, values.length, 3).data;
      return block;
    });
    // The payloads are about equally large: a budget of 3.5 holds three.
    setPayloadCacheBytes(64 * 1024 * 1024);
    nameBlock(blocks[0], 'probe');
    decodeColumnBlockRows(blocks[0], [0]);
    const budget = Math.floor(payloadCacheCounters().bytes * 3.5);
    setPayloadCacheBytes(budget);
    blocks.forEach((block, b) => nameBlock(block, `s/${b}/path`));
    for (const block of blocks) decodeColumnBlockRows(block, [0]);
    const full = payloadCacheCounters();
    assert.ok(full.bytes <= budget, `${full.bytes} bytes held`);
    assert.equal(full.entries, 3);
    decodeColumnBlockRows(blocks[5], [1]); // still there
    decodeColumnBlockRows(blocks[0], [1]); // evicted long ago
    const after = payloadCacheCounters();
    assert.equal(after.hits - full.hits, 1);
    assert.equal(after.misses - full.misses, 1);
    blocks.forEach((block, b) => sameAt(decodeColumnBlock(block), decodeColumnBlock(Buffer.from(block)), [0, 1, 2999], `block ${b}`));
  });
});

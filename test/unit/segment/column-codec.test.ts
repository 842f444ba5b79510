import { strict as assert } from 'assert';
import fc from 'fast-check';
import * as path from 'path';
import { Worker } from 'worker_threads';
import type { Column } from '../../../storage/column';
import { columnLength, valueAt } from '../../../storage/column';
import type { FieldValue } from '../../../storage/event';
import {
  ColumnEncoding,
  decodeColumnBlock,
  encodeColumnBlock,
  encodeTimeBlock,
  readBlockHeader,
} from '../../../storage/segment/column-codec';

type V = FieldValue | null;

function roundTrip(values: readonly (V | undefined)[]): { column: Column; encoding: ColumnEncoding; bytes: number } {
  const { data, summary } = encodeColumnBlock(values, 0, values.length, 3);
  assert.equal(readBlockHeader(data).encoding, summary.encoding);
  return { column: decodeColumnBlock(data), encoding: summary.encoding, bytes: data.length };
}

function valuesOf(column: Column): V[] {
  const out: V[] = [];
  for (let i = 0; i < columnLength(column); i++) out.push(valueAt(column, i));
  return out;
}

/** What a stored value reads back as: absent and non-finite numbers are null. */
function stored(v: V | undefined): V {
  if (v === undefined) return null;
  if (typeof v === 'number' && !Number.isFinite(v)) return null;
  return v;
}

function assertSame(actual: V[], expected: V[]): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) assert.ok(Object.is(actual[i], expected[i]), `row ${i}: ${String(actual[i])} !== ${String(expected[i])}`);
}

describe('segment column codec', () => {
  it('all-null blocks decode to a null constant and stay tiny', () => {
    const { column, encoding, bytes } = roundTrip(new Array(65536).fill(null));
    assert.equal(encoding, ColumnEncoding.AllNull);
    assert.deepEqual(column, { kind: 'const', value: null, length: 65536 });
    assert.ok(bytes <= 8, `${bytes} bytes`);
    assert.deepEqual(roundTrip([undefined, null, NaN]).column, { kind: 'const', value: null, length: 3 });
  });

  it('integers pick the narrowest width and decode to float64', () => {
    for (const values of [[1, -128, 127, null], [300, -32768, 32767], [2147483647, -2147483648, 0, null]]) {
      const { column, encoding } = roundTrip(values);
      assert.equal(encoding, ColumnEncoding.NumberInt);
      assert.equal(column.kind, 'number');
      if (column.kind !== 'number') return;
      assert.ok(column.values instanceof Float64Array);
      assert.equal(column.allIntegers, true);
      assert.equal(column.nulls === null, !values.includes(null));
      assertSame(valuesOf(column), values);
    }
  });

  it('non-int32 numbers use float64; -0 is kept; NaN and Infinity become null', () => {
    const values: V[] = [2147483648, -2147483649, 2 ** 53 - 1, 1e308, -1e308, 5e-324, 0.1, -0, null, NaN, Infinity, -Infinity];
    const { column, encoding } = roundTrip(values);
    assert.equal(encoding, ColumnEncoding.NumberFloat);
    if (column.kind !== 'number') throw new Error(column.kind);
    assert.equal(column.allIntegers, false);
    assertSame(valuesOf(column), values.map(stored));
    assert.deepEqual([...column.nulls!], [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    const big = roundTrip([2 ** 40, -0, 3]).column;
    assert.ok(big.kind === 'number' && big.allIntegers && Object.is(big.values[1], -0));
  });

  it('booleans with and without nulls', () => {
    const values: V[] = [true, false, null, true, true, false, false, false, true];
    const { column, encoding } = roundTrip(values);
    assert.equal(encoding, ColumnEncoding.Boolean);
    assert.equal(column.kind, 'boolean');
    assertSame(valuesOf(column), values);
    const dense = roundTrip([false, true]).column;
    assert.ok(dense.kind === 'boolean' && dense.nulls === null);
  });

  it('low-cardinality strings become a sorted dictionary, code 0 = null', () => {
    const values: V[] = [];
    for (let i = 0; i < 1000; i++) values.push(i % 7 === 0 ? null : ['warn', 'info', 'error', ''][i % 4]);
    const { column, encoding } = roundTrip(values);
    assert.equal(encoding, ColumnEncoding.Dict);
    if (column.kind !== 'dict') throw new Error(column.kind);
    assert.deepEqual(column.dict, ['', '', 'error', 'info', 'warn']);
    assert.ok(column.codes instanceof Uint8Array);
    assertSame(valuesOf(column), values);
  });

  it('dictionary codes widen to 2 and 4 bytes', () => {
    const two = Array.from({ length: 2000 }, (_, i) => `v${i % 600}`);
    const c2 = roundTrip(two).column;
    assert.ok(c2.kind === 'dict' && c2.codes instanceof Uint16Array);
    assertSame(valuesOf(c2), two);
    const four = Array.from({ length: 140_000 }, (_, i) => `k${i >> 1}`);
    const c4 = roundTrip(four).column;
    assert.ok(c4.kind === 'dict' && c4.codes instanceof Uint32Array);
    assertSame(valuesOf(c4), four);
  });

  it('high-cardinality strings are stored plain', () => {
    const values: V[] = Array.from({ length: 5000 }, (_, i) => (i % 10 === 0 ? null : `request ${i} from 10.0.${i % 256}.1`));
    const { column, encoding } = roundTrip(values);
    assert.equal(encoding, ColumnEncoding.String);
    assert.equal(column.kind, 'string');
    assertSame(valuesOf(column), values);
  });

  it('unicode, empty, latin1, lone surrogates and a 1 MB string round-trip exactly', () => {
    const samples = ['', '😀 emoji 🎉', '東京都 エラー', 'e\u0301 combining', 'Ünïcödé é', '\ud800 lone', 'tail \udc00', '\udbff\udfff pair', 'x'.repeat(1 << 20)];
    for (const plain of [false, true]) {
      const values: V[] = plain ? samples.flatMap((s, i) => [s, `${s}#${i}`, null]) : [...samples, ...samples, ...samples];
      const padded = plain ? [...values, ...Array.from({ length: 600 }, (_, i) => `u${i}`)] : values;
      const { column } = roundTrip(padded);
      assert.equal(column.kind, plain ? 'string' : 'dict');
      assertSame(valuesOf(column), padded);
    }
    const lone = roundTrip(['a\ud83d', '\ude00b', ...Array.from({ length: 600 }, (_, i) => `u${i}`)]).column;
    assert.equal(valueAt(lone, 0), 'a\ud83d');
    assert.equal(valueAt(lone, 1), '\ude00b');
  });

  it('mixed-type columns keep each value type: 200 stays a number, "200" a string', () => {
    const values: V[] = [200, '200', true, null, 'x', -1.5, false, NaN];
    const { column, encoding } = roundTrip(values);
    assert.equal(encoding, ColumnEncoding.Mixed);
    assert.equal(column.kind, 'mixed');
    assertSame(valuesOf(column), values.map(stored));
  });

  it('time blocks: sorted deltas, unsorted, and float fallback', () => {
    const sorted = [1718000000000000, 1718000000000000, 1718000000000007, 1718000000123456, 1718003600000000];
    const unsorted = [5, 3, -2, 2 ** 50, -(2 ** 50), 0];
    const floats = [1.5, 2.25, 3];
    for (const [times, enc] of [
      [sorted, ColumnEncoding.TimeDelta32],
      [unsorted, ColumnEncoding.TimeDelta],
      [floats, ColumnEncoding.TimeFloat],
      [[2 ** 53 + 2, 0], ColumnEncoding.TimeFloat],
    ] as const) {
      const data = encodeTimeBlock(times, 0, times.length, 3);
      assert.equal(readBlockHeader(data).encoding, enc);
      const column = decodeColumnBlock(data);
      assert.equal(column.kind, 'time');
      assert.deepEqual([...(column.kind === 'time' ? column.values : [])], times);
    }
    const many = Array.from({ length: 65536 }, (_, i) => 1718000000000000 + i * 7);
    const data = encodeTimeBlock(many, 1000, 3000, 3);
    const column = decodeColumnBlock(data);
    assert.ok(column.kind === 'time' && column.values.length === 2000 && column.values[0] === many[1000]);
    assert.ok(data.length < 100, `${data.length} bytes for 2000 regular times`);
  });

  it('encodes a sub-range and reports block stats', () => {
    const values: V[] = ['skip', 'b', 'a', null, 3, 'skip'];
    const { data, summary } = encodeColumnBlock(values, 1, 5, 1);
    assert.equal(summary.encoding, ColumnEncoding.Mixed);
    assert.deepEqual(summary.counts, { string: 2, number: 1, integer: 1, boolean: 0 });
    assert.equal(summary.nullCount, 1);
    assert.deepEqual([summary.min, summary.max, summary.minString, summary.maxString], [3, 3, 'a', 'b']);
    assertSame(valuesOf(decodeColumnBlock(data)), ['b', 'a', null, 3]);
    const d = encodeColumnBlock(['é', 'é', 'ab'], 0, 3, 1).summary;
    assert.deepEqual([d.dict, d.stringBytes], [['ab', 'é'], 6]);
  });

  it('rejects truncated or unknown blocks', () => {
    const { data } = encodeColumnBlock(Array.from({ length: 3000 }, (_, i) => `line ${i}`), 0, 3000, 3);
    assert.throws(() => decodeColumnBlock(data.subarray(0, data.length - 10)));
    assert.throws(() => decodeColumnBlock(Buffer.from([99, 0, 1])));
    assert.throws(() => decodeColumnBlock(Buffer.from([ColumnEncoding.NumberInt, 0, 4, 0])));
  });

  it('round-trips arbitrary columns (property)', () => {
    const unit = fc.oneof(
      fc.constantFrom('a', 'B', ' ', 'é', '😀', '東', '\ud800', '\udc00', '\u0301'),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    );
    const value = fc.oneof(
      fc.constant(null),
      fc.string({ unit, maxLength: 12 }),
      fc.constantFrom('info', 'warn', 'error'),
      fc.double(),
      fc.integer(),
      fc.integer({ min: -200, max: 200 }),
      fc.boolean(),
    );
    const column = fc.oneof(
      fc.array(value, { maxLength: 300 }),
      fc.array(fc.oneof(fc.constant(null), fc.string({ unit, maxLength: 8 })), { maxLength: 600 }),
      fc.array(fc.oneof(fc.constant(null), fc.double()), { maxLength: 100 }),
      fc.array(fc.oneof(fc.constant(null), fc.integer()), { maxLength: 100 }),
    );
    fc.assert(
      fc.property(column, (values) => {
        const { column: decoded } = roundTrip(values);
        // JSON (mixed blocks) cannot tell -0 from 0.
        const expected = values.map((v) => (decoded.kind === 'mixed' && Object.is(v, -0) ? 0 : stored(v)));
        assertSame(valuesOf(decoded), expected);
      }),
      { numRuns: 500 },
    );
  });

  it('decodes inside a worker thread', async () => {
    const values: V[] = Array.from({ length: 1000 }, (_, i) => (i % 3 === 0 ? `s${i}` : i % 3 === 1 ? 'dup' : null));
    const { data } = encodeColumnBlock(values, 0, values.length, 3);
    const modulePath = path.resolve(__dirname, '../../../storage/segment/column-decode');
    const code = `
      const { parentPort, workerData } = require('worker_threads');
      const { decodeColumnBlock } = require(workerData.modulePath);
      const { valueAt } = require(workerData.columnPath);
      const column = decodeColumnBlock(workerData.block);
      parentPort.postMessage(Array.from({ length: 1000 }, (_, i) => valueAt(column, i)));
    `;
    const columnPath = path.resolve(__dirname, '../../../storage/column');
    const worker = new Worker(code, { eval: true, workerData: { block: data, modulePath, columnPath } });
    const result = await new Promise<V[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    assertSame(result, values);
  });
});

import { strict as assert } from 'assert';
import fc from 'fast-check';
import * as path from 'path';
import { Worker } from 'worker_threads';
import type { Column } from '../../../storage/core/column';
import { columnLength, valueAt } from '../../../storage/core/column';
import type { FieldValue } from '../../../storage/core/event';
import {
  ColumnEncoding,
  decodeColumnBlock,
  decodeColumnBlockRows,
  encodeColumnBlock,
  encodeTimeBlock,
  readBlockHeader,
} from '../../../storage/segment/column-codec';
import { ByteReader, ByteWriter } from '../../../storage/segment/bytes';

type V = FieldValue | null;

function roundTrip(values: readonly (V | undefined)[]): { column: Column; encoding: ColumnEncoding; bytes: number } {
  const { data, summary } = encodeColumnBlock(values, 0, values.length, 3);
  assert.equal(readBlockHeader(data).encoding, summary.encoding);
  return { column: decodeColumnBlock(data), encoding: summary.encoding, bytes: data.length };
}

/** A stored block of a given encoding around a hand-written payload (uncompressed envelope). */
function sealed(encoding: ColumnEncoding, rows: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([encoding, 0, rows]), payload]);
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
  for (let i = 0; i < expected.length; i++)
    assert.ok(Object.is(actual[i], expected[i]), `row ${i}: ${String(actual[i])} !== ${String(expected[i])}`);
}

describe('segment column codec', () => {
  it('all-null blocks decode to a null constant and stay tiny', () => {
    const { column, encoding, bytes } = roundTrip(new Array(65536).fill(null));
    assert.equal(encoding, ColumnEncoding.AllNull);
    assert.deepEqual(column, { kind: 'const', value: null, length: 65536 });
    assert.ok(bytes <= 8, `${bytes} bytes`);
    assert.deepEqual(roundTrip([undefined, null, NaN]).column, { kind: 'const', value: null, length: 3 });
  });

  it('integers are packed: non-null values minus the minimum, as byte planes, decoded to float64', () => {
    for (const values of [
      [1, -128, 127, null],
      [300, -32768, 32767],
      [2147483647, -2147483648, 0, null],
      [7, 7, null, 7],
      [2 ** 53 - 1, 2 ** 53 - 2, null, 2 ** 40],
      [-(2 ** 52), 0, null, 2 ** 52 - 1],
      [-5, null, null, null, -3e15, 4e9],
    ]) {
      const { column, encoding } = roundTrip(values);
      assert.equal(encoding, ColumnEncoding.NumberPacked);
      assert.equal(column.kind, 'number');
      if (column.kind !== 'number') return;
      assert.ok(column.values instanceof Float64Array);
      assert.equal(column.allIntegers, true);
      assert.equal(column.nulls === null, !values.includes(null));
      assertSame(valuesOf(column), values);
    }
    // A range of 2^53 or more does not fit the planes: float64.
    const wide = roundTrip([2 ** 53 - 1, -(2 ** 53 - 1), null]);
    assert.equal(wide.encoding, ColumnEncoding.NumberFloat);
    assertSame(valuesOf(wide.column), [2 ** 53 - 1, -(2 ** 53 - 1), null]);
    // Nulls cost a bit each, not a value slot: 20,000 values in 0..19999 and as many nulls.
    const sparse = Array.from({ length: 40000 }, (_, i) => (i % 2 === 0 ? null : (i * 7919) % 20000));
    const packed = roundTrip(sparse);
    assertSame(valuesOf(packed.column), sparse);
    assert.ok(packed.bytes < 20000 * 2 + 5000 + 100, `${packed.bytes} bytes`);
  });

  it('still decodes the int32 and uint32-delta layouts older segments hold', () => {
    // NumberInt: flags (nulls), width 2, null bitmap, int16 values.
    const ints = Buffer.from([1, 2, 0b0100, 0, 0x2c, 0x01, 0x00, 0x80, 0, 0]);
    const column = decodeColumnBlock(sealed(ColumnEncoding.NumberInt, 3, ints));
    assertSame(valuesOf(column), [300, -32768, null]);
    // TimeDelta32: float64 first value, then uint32 deltas (aligned).
    const first = Buffer.alloc(8);
    first.writeDoubleLE(1718000000000000);
    const deltas = Buffer.alloc(8);
    deltas.writeUInt32LE(7, 0);
    deltas.writeUInt32LE(1000, 4);
    const times = decodeColumnBlock(sealed(ColumnEncoding.TimeDelta32, 3, Buffer.concat([first, deltas])));
    assert.ok(times.kind === 'time');
    assert.deepEqual([...times.values], [1718000000000000, 1718000000000007, 1718000000001007]);
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
    const values: V[] = Array.from({ length: 5000 }, (_, i) =>
      i % 10 === 0 ? null : `request ${i} from ${(i * 7919).toString(36)}.example`,
    );
    const { column, encoding } = roundTrip(values);
    assert.equal(encoding, ColumnEncoding.String);
    assert.equal(column.kind, 'string');
    assertSame(valuesOf(column), values);
  });

  it('strings of one skeleton around numbers are stored as a template', () => {
    const users: V[] = Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? null : `u${(i * 7919) % 50000}`));
    const ips: V[] = Array.from({ length: 5000 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.${(i * 7) % 256}`);
    const ids: V[] = Array.from({ length: 600 }, (_, i) => `${i * 104729}`);
    const edges: V[] = [...Array.from({ length: 600 }, (_, i) => `web-${i}:${0}/x`), 'web-999999999999999:0/x', 'web-0:0/x'];
    for (const values of [users, ips, ids, edges]) {
      const { column, encoding, bytes } = roundTrip(values);
      assert.equal(encoding, ColumnEncoding.StringTemplate);
      assert.equal(column.kind, 'string');
      assertSame(valuesOf(column), values);
      const plain = encodeColumnBlock(
        values.map((v) => (v === null ? null : `${v}\u00e9`)),
        0,
        values.length,
        3,
      ).data.length;
      assert.ok(bytes < plain, `${bytes} bytes as a template, ${plain} plain`);
    }
    // Anything that would not come back exactly stays plain: leading zeros, 16 digits, other
    // literals, non-ASCII, long strings.
    const base = Array.from({ length: 600 }, (_, i) => `u${i}`);
    for (const odd of ['u007', 'u1234567890123456', 'v1', 'u1x', 'ü1', `u1${'x'.repeat(70)}`, 'u', '']) {
      const values: V[] = [...base, odd];
      const { column, encoding } = roundTrip(values);
      assert.equal(encoding, ColumnEncoding.String, odd);
      assertSame(valuesOf(column), values);
    }
  });

  it('hex ids of one length and case are stored as bytes', () => {
    const hex = (i: number): string =>
      ((i * 2654435761) % 2 ** 32).toString(16).padStart(8, '0') + ((i * 40503) % 2 ** 16).toString(16).padStart(4, '0');
    const lower: V[] = Array.from({ length: 3000 }, (_, i) => (i % 5 < 2 ? null : hex(i)));
    const upper: V[] = Array.from({ length: 3000 }, (_, i) => hex(i).toUpperCase());
    for (const values of [lower, upper]) {
      const { column, encoding, bytes } = roundTrip(values);
      assert.equal(encoding, ColumnEncoding.HexString);
      assertSame(valuesOf(column), values);
      assert.ok(bytes < 3000 * 6 + 500, `${bytes} bytes`);
    }
    for (const odd of ['ABCdef123456', 'abc', 'abcdef12345g', 'abcdef1234']) {
      const values: V[] = [...lower.slice(0, 600), odd];
      const { column, encoding } = roundTrip(values);
      assert.equal(encoding, ColumnEncoding.String, odd);
      assertSame(valuesOf(column), values);
    }
  });

  it('round-trips template-like and hex-like strings (property)', () => {
    const piece = fc.oneof(
      fc.constantFrom('u', '.', '-', 'web-', ':', '', 'a', 'F', '0', '00', '9'),
      fc.nat({ max: 2 ** 53 - 1 }).map(String),
      fc.array(fc.constantFrom(...'0123456789abcdefABCDEF'), { minLength: 2, maxLength: 4 }).map((chars) => chars.join('')),
    );
    const value = fc.option(
      fc.array(piece, { maxLength: 5 }).map((parts) => parts.join('')),
      { nil: null },
    );
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 400 }), (values) => {
        const padded = [...values, ...Array.from({ length: 600 }, (_, i) => values.find((v) => v !== null) ?? `u${i}`)];
        assertSame(valuesOf(roundTrip(padded).column), padded);
      }),
      { numRuns: 300 },
    );
  });

  it('unicode, empty, latin1, lone surrogates and a 1 MB string round-trip exactly', () => {
    const samples = [
      '',
      '😀 emoji 🎉',
      '東京都 エラー',
      'e\u0301 combining',
      'Ünïcödé é',
      '\ud800 lone',
      'tail \udc00',
      '\udbff\udfff pair',
      'x'.repeat(1 << 20),
    ];
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
      [sorted, ColumnEncoding.TimeScaled],
      [[1718000000000000, 1718000000000000], ColumnEncoding.TimeScaled],
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
    // Millisecond times in microseconds: deltas over their common divisor, one byte each.
    let t = 1718000000000000;
    const millis = Array.from({ length: 16384 }, (_, i) => (t += ((i * 7919) % 44) * 1000));
    const scaled = encodeTimeBlock(millis, 0, millis.length, 3);
    assert.equal(readBlockHeader(scaled).encoding, ColumnEncoding.TimeScaled);
    const back = decodeColumnBlock(scaled);
    assert.ok(back.kind === 'time');
    assert.deepEqual([...back.values], millis);
    assert.ok(scaled.length < 16384, `${scaled.length} bytes for 16384 millisecond times`);
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
    const { data } = encodeColumnBlock(
      Array.from({ length: 3000 }, (_, i) => `line ${i}`),
      0,
      3000,
      3,
    );
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
    const columnPath = path.resolve(__dirname, '../../../storage/core/column');
    const worker = new Worker(code, { eval: true, workerData: { block: data, modulePath, columnPath } });
    const result = await new Promise<V[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    assertSame(result, values);
  });
});

describe('ByteReader.varintsInto', () => {
  it('reads what varint() reads, one by one, minus the bias, and refuses a truncated run', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { maxLength: 300 }), fc.constantFrom(0, 1), (values, bias) => {
        const writer = new ByteWriter(16);
        for (const value of values) writer.varint(value);
        const bytes = writer.finish();
        const one = new ByteReader(bytes);
        const expected = values.map(() => one.varint() - bias);
        const many = new ByteReader(bytes);
        const out = new Int32Array(values.length);
        many.varintsInto(out, values.length, bias);
        assert.deepEqual([...out], expected);
        assert.equal(many.pos, bytes.length);
        if (bytes.length > 0)
          assert.throws(
            () => new ByteReader(bytes.subarray(0, bytes.length - 1)).varintsInto(new Int32Array(values.length), values.length, bias),
            /truncated/,
          );
      }),
      { numRuns: 300 },
    );
  });
});

describe('dictionary code checks', () => {
  // A dictionary block by hand: entries 'a' and 'b' (codes 1 and 2), rows coded 1, 2, 3.
  const stringList = Buffer.from([1, 1, 1, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0x61, 0x62]);
  const block = sealed(ColumnEncoding.Dict, 3, Buffer.concat([Buffer.from([1, 2]), stringList, Buffer.from([1, 2, 3])]));

  it('a whole decode refuses any code past the dictionary', () => {
    assert.throws(() => decodeColumnBlock(block), /dictionary code out of range/);
  });

  it('a decode of listed rows checks the codes of those rows', () => {
    const column = decodeColumnBlockRows(block, [0, 1]);
    assert.deepEqual([valueAt(column, 0), valueAt(column, 1)], ['a', 'b']);
    assert.throws(() => decodeColumnBlockRows(block, [1, 2]), /dictionary code out of range/);
    assert.throws(() => decodeColumnBlockRows(block, [7]), /dictionary code out of range/);
  });
});

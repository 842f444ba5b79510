import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { FieldValue, LogEvent } from '../../../storage/core/event';
import { ColumnEncoding, decodeColumnBlock, readBlockHeader } from '../../../storage/segment/column-codec';
import { bloomMayContainAll, framesToRead } from '../../../storage/segment/bloom';
import { FRAME_ROWS, openFramed } from '../../../storage/segment/framed-block';
import { LiteralByteSearch } from '../../../storage/segment/literal-search';
import { RawRefEncoder, fillRefs, holdsFieldRefs, refText } from '../../../storage/segment/raw-refs';
import { decodeColumns, decodeRawRefsMatching, fieldSource, tokenTest } from '../../../storage/segment/row-block';
import { tokenize } from '../../../storage/segment/tokenizer';
import { rowSetFromEvents } from '../../../storage/segment/row-set';
import { encodeSegment } from '../../../storage/segment/segment-encoder';
import { decodeSegmentBatches } from '../../../storage/segment/segment-decoder';
import { valueAt } from '../../../storage/core/column';
import { mergeSegments } from '../../../storage/threads/codec-worker';
import type { SegmentHeader } from '../../../storage/segment/header';

/** Encodes `lines` against `fields` (dense columns) and fills the skeletons back in. */
function roundTrip(lines: string[], fields: Map<string, (FieldValue | null)[]>): string[] {
  const encoder = RawRefEncoder.choose(lines, fields);
  if (encoder === null) return lines;
  const columns = encoder.names.map((name) => fields.get(name)!);
  return lines.map((line, row) => {
    const skeleton = encoder.encode(line, row);
    return fillRefs(skeleton, encoder.names.length, (k) => refText(columns[k][row])!);
  });
}

/** Frames of 4,096, 2,048, 1,024, 512 and 256 rows (framed-block.ts frameSizes), the needle in the second. */
const ROWS = FRAME_ROWS + 2048 + 1024 + 512 + 256;
const NEEDLE_ROW = FRAME_ROWS + 17;

/** Access lines that repeat their fields, one of them with a needle that no field holds. */
function accessEvents(): LogEvent[] {
  return Array.from({ length: ROWS }, (_, i) => {
    const fields = {
      client: `10.0.${i % 7}.${i % 251}`,
      user: `u${(i * 7919) % 5003}`,
      path: `/api/v1/orders/${i % 977}`,
      status: [200, 404, 500][i % 3],
      bytes: (i * 37) % 20000,
      ok: i % 2 === 0,
    };
    const needle = i === NEEDLE_ROW ? ' trace=ZQ7needleXV' : '';
    return {
      time: 1_700_000_000_000_000 + i * 1000,
      raw: `${fields.client} - ${fields.user} "GET ${fields.path} HTTP/1.1" ${fields.status} ${fields.bytes} ok=${fields.ok}${needle}`,
      index: 'main',
      fields,
    };
  });
}

describe('_raw with field references', () => {
  it('references only what the column gives back exactly', () => {
    assert.equal(refText('web-1'), 'web-1');
    assert.equal(refText('a'), null, 'too short to gain');
    assert.equal(refText(12345), '12345');
    assert.equal(refText(0.5), '0.5');
    assert.equal(refText(7), null);
    assert.equal(refText(-0), null);
    assert.equal(refText(Number.NaN), null);
    assert.equal(refText(true), 'true');
    assert.equal(refText('\uD800x'), null, 'a lone surrogate does not survive UTF-8');
    assert.equal(refText(null), null);
  });

  it('fills every line back exactly (property: random lines, values, NULs and unicode)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'B', '7', '_', ' ', '-', '/', '"', '=', '\u0000', 'é', '😀', '\uD800', '.') });
    const value = fc.oneof(text, fc.integer({ min: -100000, max: 100000 }), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null));
    const row = fc.record({
      values: fc.array(value, { minLength: 3, maxLength: 3 }),
      parts: fc.array(text, { minLength: 4, maxLength: 4 }),
      order: fc.array(fc.nat(2), { minLength: 3, maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), (rows) => {
        // Lines are text with field texts woven in, in any order (repeats, some absent).
        const lines = rows.map(({ values, parts, order }) => {
          const texts = values.map((v) => (v === null ? '' : String(v)));
          return parts[0] + texts[order[0]] + parts[1] + texts[order[1]] + parts[2] + texts[order[2]] + parts[3];
        });
        const fields = new Map<string, (FieldValue | null)[]>([0, 1, 2].map((k) => [`f${k}`, rows.map((r) => r.values[k])]));
        assert.deepEqual(roundTrip(lines, fields), lines);
      }),
      { numRuns: 300 },
    );
  });

  it('tells whether a text or a value holds a token as the tokenizer does (property)', () => {
    const token = fc.oneof(fc.constantFrom('404', '0', '21', '1e', 'u12', 'abc', 'straße', '0404'), fc.stringMatching(/^[a-z0-9_]{1,5}$/));
    const value = fc.oneof(
      fc.integer({ min: -2000, max: 2000 }),
      fc.constantFrom(404, -404, 1e21, 0.404, 4040, 1.5e300),
      fc.double(),
      fc.string(),
      fc.constantFrom('ABC-404', 'u12', 'STRASSE straße', 'x_404'),
    );
    fc.assert(
      fc.property(token, value, (t, v) => {
        const column =
          typeof v === 'number'
            ? { kind: 'number' as const, values: Float64Array.of(v), nulls: null, allIntegers: Number.isInteger(v) }
            : { kind: 'string' as const, values: [v] };
        const shown = refText(v);
        // Values never referenced (no text) may answer either way: only referenced ones are looked at.
        if (shown !== null) assert.equal(tokenTest(t).value(column, 0), tokenize(shown).includes(t), `${t} in ${String(v)}`);
        if (typeof v === 'string') assert.equal(tokenTest(t).text(v), tokenize(v).includes(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('references a value only at token boundaries, and never two values over one stretch', () => {
    const lines = ['user=u12 id=u123 u12x', 'a-u12-b'];
    const fields = new Map<string, (FieldValue | null)[]>([['user', ['u12', 'u12']]]);
    const encoder = RawRefEncoder.choose(lines, fields)!;
    assert.equal(encoder.encode(lines[0], 0), 'user=\u0000\u0001 id=u123 u12x');
    assert.equal(encoder.encode(lines[1], 1), 'a-\u0000\u0001-b');
    const overlapping = new Map<string, (FieldValue | null)[]>([
      ['long', ['a1 b2']],
      ['short', ['a1']],
    ]);
    const twice = RawRefEncoder.choose(['a1 b2 a1'], overlapping)!;
    assert.deepEqual(twice.names, ['long', 'short']);
    assert.equal(twice.encode('a1 b2 a1', 0), '\u0000\u0001 \u0000\u0002');
  });

  it('references ids, addresses and numbers of many values, never words or few values', () => {
    const lines = Array.from(
      { length: 100 },
      (_, i) => `GET /api/orders/${i} from 10.0.0.${i} as u${i} status=${200 + (i % 2)} service=checkout ok=true`,
    );
    const fields = new Map<string, (FieldValue | null)[]>([
      ['path', lines.map((_, i) => `/api/orders/${i}`)],
      ['client', lines.map((_, i) => `10.0.0.${i}`)],
      ['user', lines.map((_, i) => `u${i}`)],
      ['status', lines.map((_, i) => 200 + (i % 2))],
      ['service', lines.map(() => 'checkout')],
      ['ok', lines.map(() => true)],
    ]);
    assert.deepEqual([...RawRefEncoder.choose(lines, fields)!.names].sort(), ['client', 'user']);
  });

  it('compaction stores _raw as skeletons and reads every row back, smaller', () => {
    const events = accessEvents();
    const plain = encodeSegment(rowSetFromEvents(events), { compressionLevel: 9, blockRows: FRAME_ROWS * 4 });
    const refs = encodeSegment(rowSetFromEvents(events), { compressionLevel: 9, blockRows: FRAME_ROWS * 4, rawRefs: true });
    const raw = refs.stats.columns[1];
    assert.equal(raw.name, '_raw');
    assert.deepEqual([...(raw.refs ?? [])].sort(), ['bytes', 'client', 'user']);
    assert.equal(holdsFieldRefs(refs.blockData[0][1]), true);
    assert.equal(holdsFieldRefs(plain.blockData[0][1]), false);
    assert.equal(readBlockHeader(openFramed(refs.blockData[0][1]).frames[0].data).encoding, ColumnEncoding.RawRefs);
    assert.ok(raw.bytes < plain.stats.columns[1].bytes * 0.7, `skeletons ${raw.bytes} bytes, whole lines ${plain.stats.columns[1].bytes}`);
    // The header describes the lines, not the skeletons.
    assert.equal(refs.stats.rawBytes, plain.stats.rawBytes);
    assert.equal(raw.minString, plain.stats.columns[1].minString);
    assert.equal(raw.maxString, plain.stats.columns[1].maxString);
    const lines = decodeSegmentBatches(refs.stats, refs.blockData, ['_raw']).flatMap((batch) => {
      const column = batch.columns.get('_raw')!;
      return Array.from({ length: batch.rowCount }, (_, row) => valueAt(column, row));
    });
    assert.deepEqual(
      lines,
      events.map((event) => event.raw),
    );
    // Alone, without its fields, the block cannot be read.
    assert.throws(() => decodeColumnBlock(refs.blockData[0][1]), /field references/);
  });

  it('a merge of segments with references reads their lines back and references them again', () => {
    const events = accessEvents();
    const halves = [events.slice(0, 5000), events.slice(5000)].map((part) =>
      encodeSegment(rowSetFromEvents(part), { compressionLevel: 3, blockRows: FRAME_ROWS * 4, rawRefs: true }),
    );
    const merged = mergeSegments(
      halves.map((half) => ({
        header: {
          ...half.stats,
          version: 3,
          id: 'x',
          index: 'main',
          bucket: 0,
          partition: 0,
          level: 1,
          createdAt: 0,
          sources: [],
        } as SegmentHeader,
        blocks: half.blockData,
      })),
      { compressionLevel: 3, blockRows: FRAME_ROWS * 4, rawRefs: true },
    );
    assert.ok((merged.stats.columns[1].refs ?? []).length > 0);
    const lines = decodeSegmentBatches(merged.stats, merged.blockData, ['_raw', 'user']).flatMap((batch) => {
      const column = batch.columns.get('_raw')!;
      return Array.from({ length: batch.rowCount }, (_, row) => valueAt(column, row));
    });
    assert.deepEqual(
      lines,
      events.map((event) => event.raw),
    );
  });

  it('keeps skeleton and referenced-value tokens in separate frame filters', () => {
    const refs = encodeSegment(rowSetFromEvents(accessEvents()), { compressionLevel: 3, blockRows: FRAME_ROWS * 4, rawRefs: true });
    const meta = refs.stats.blocks[0];
    const bloom = refs.blooms[0];
    assert.ok(meta.frames?.every((frame) => frame.refs !== undefined));
    const bits = meta.bloom.bits + (meta.frames ?? []).reduce((sum, frame) => sum + frame.bloom.bits + (frame.refs?.bits ?? 0), 0);
    assert.equal(bloom.length, bits / 8);
    // The block filter holds every token of the lines; a token of a value is found in some frame.
    assert.equal(bloomMayContainAll(bloom, meta.bloom, ['zq7needlexv', 'orders', 'u2916']), true);
    // A word is in every frame's skeletons (paths are not referenced: they hold words).
    assert.deepEqual(framesToRead(bloom, meta, ['orders']), { frames: [0, 1, 2, 3, 4], ownTokens: [0, 0, 0, 0, 0] });
    const needle = framesToRead(bloom, meta, ['zq7needlexv', 'trace']);
    const at = needle.frames.indexOf(1);
    assert.ok(at !== -1, 'the needle frame is read');
    // Neither token is in a referenced value: the longer one is searched in the skeletons.
    assert.equal(needle.ownTokens[at], 0);
    // A user id is only in referenced values: its frame is read, and not by its skeletons alone.
    const user = framesToRead(bloom, meta, ['u2916']);
    assert.equal(user.ownTokens[user.frames.indexOf(0)], -1);
  });

  it('a search reads the skeletons of a frame first, then fills in only its candidate rows', () => {
    const events = accessEvents();
    const refs = encodeSegment(rowSetFromEvents(events), { compressionLevel: 3, blockRows: FRAME_ROWS * 4, rawRefs: true });
    const names = refs.stats.columns.map((column) => column.name);
    const block = { names, buffers: refs.blockData[0] };
    const raw = refs.blockData[0][1];
    const needle = LiteralByteSearch.of('zq7needlexv')!;
    const found = decodeRawRefsMatching(raw, ROWS, [1], [null, needle], fieldSource(block));
    assert.deepEqual([...found.rows], [NEEDLE_ROW]);
    assert.equal(valueAt(found.column, NEEDLE_ROW), events[NEEDLE_ROW].raw);
    // Without a skeleton token, every row of the listed frames is a candidate, filled in.
    const all = decodeRawRefsMatching(raw, ROWS, [0, 4], null, fieldSource(block));
    assert.equal(all.rows.length, FRAME_ROWS + 256);
    for (const row of [0, FRAME_ROWS - 1, ROWS - 256, ROWS - 1]) {
      assert.equal(valueAt(all.column, row), events[row].raw);
    }
    // A token that may be in the frame's values: rows whose skeleton or values hold it.
    const byValue = decodeRawRefsMatching(raw, ROWS, [0], null, fieldSource(block), 'u2916');
    const expected = events.flatMap((event, row) => (row < FRAME_ROWS && /\bu2916\b/i.test(event.raw) ? [row] : []));
    assert.ok(expected.length > 0);
    assert.deepEqual([...byValue.rows], expected);
    for (const row of expected) assert.equal(valueAt(byValue.column, row), events[row].raw);
    // Late decode of a few rows, with the fields read from the block's other buffers.
    const late = decodeColumns(ROWS, ['_raw'], [raw], [5, NEEDLE_ROW], block).get('_raw')!;
    assert.equal(valueAt(late, NEEDLE_ROW), events[NEEDLE_ROW].raw);
    assert.equal(valueAt(late, 5), events[5].raw);
    assert.throws(() => decodeColumns(ROWS, ['_raw'], [raw]), /was not read/);
  });
});

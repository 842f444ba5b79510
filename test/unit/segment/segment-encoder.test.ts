import { strict as assert } from 'assert';
import fc from 'fast-check';
import { valueAt } from '../../../storage/core/column';
import type { FieldValue, LogEvent } from '../../../storage/core/event';
import { bloomMayContain } from '../../../storage/segment/bloom';
import { ColumnEncoding, readBlockHeader } from '../../../storage/segment/column-codec';
import { MAX_HEADER_DICT } from '../../../storage/segment/header';
import { appendEvent, emptyRowSet, rowSetFromBatches, rowSetFromEvents } from '../../../storage/segment/row-set';
import type { EncodedSegment } from '../../../storage/segment/segment-encoder';
import { encodeSegment } from '../../../storage/segment/segment-encoder';
import { decodeSegmentBatches, decodeSegmentColumn, segmentColumnIndex } from '../../../storage/segment/segment-decoder';
import { tokenize } from '../../../storage/segment/tokenizer';

interface Row {
  time: number;
  raw: string;
  fields: Record<string, FieldValue>;
}

function ev(time: number, raw: string, fields: Record<string, FieldValue> = {}): LogEvent {
  return { time, raw, index: 'main', fields };
}

/** Every row of an encoded segment, fields without nulls. */
function readRows(seg: EncodedSegment): Row[] {
  const rows: Row[] = [];
  for (const batch of decodeSegmentBatches(seg.stats, seg.blockData)) {
    for (let i = 0; i < batch.rowCount; i++) {
      const row: Row = { time: 0, raw: '', fields: {} };
      for (const [name, column] of batch.columns) {
        const v = valueAt(column, i);
        if (name === '_time') row.time = v as number;
        else if (name === '_raw') row.raw = v as string;
        else if (v !== null) row.fields[name] = v;
      }
      rows.push(row);
    }
  }
  return rows;
}

/** What the segment should read back: stable-sorted by time, non-finite numbers dropped. */
function expectedRows(events: readonly LogEvent[]): Row[] {
  return events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.time - b.e.time || a.i - b.i)
    .map(({ e }) => {
      const fields: Record<string, FieldValue> = {};
      for (const [k, v] of Object.entries(e.fields)) if (typeof v !== 'number' || Number.isFinite(v)) fields[k] = v;
      return { time: e.time, raw: e.raw, fields };
    });
}

const OPTS = { compressionLevel: 3, blockRows: 65536 };

describe('segment encoder', () => {
  it('sorts rows by time (stable) and applies the order to every column', () => {
    const events = [
      ev(30, 'third', { n: 3, s: 'c' }),
      ev(10, 'first', { n: 1 }),
      ev(20, 'second-a', { s: 'b', flag: true }),
      ev(20, 'second-b', { n: 2.5, flag: false }),
      ev(5, 'zero', {}),
    ];
    const seg = encodeSegment(rowSetFromEvents(events), OPTS);
    assert.deepEqual(readRows(seg), expectedRows(events));
    assert.deepEqual(
      seg.stats.columns.map((c) => c.name),
      ['_time', '_raw', 'flag', 'n', 's'],
    );
    assert.equal(seg.stats.minTime, 5);
    assert.equal(seg.stats.maxTime, 30);
    assert.deepEqual(
      seg.stats.blocks.map(({ rows, minTime, maxTime }) => ({ rows, minTime, maxTime })),
      [{ rows: 5, minTime: 5, maxTime: 30 }],
    );
  });

  it('cuts many blocks; a field absent from a block gets an all-null block', () => {
    const events: LogEvent[] = [];
    for (let i = 0; i < 100; i++) events.push(ev(1000 - i * 3, `line ${i}`, i < 10 ? { early: i } : { late: `v${i % 4}` }));
    const seg = encodeSegment(rowSetFromEvents(events), { ...OPTS, blockRows: 7 });
    assert.equal(seg.stats.blocks.length, 15);
    assert.equal(seg.stats.blocks[14].rows, 2);
    for (const block of seg.blockData) assert.equal(block.length, seg.stats.columns.length);
    // Sorted by time, the 10 "early" rows (latest times) are in the last two blocks.
    const early = segmentColumnIndex(seg.stats, 'early');
    assert.equal(readBlockHeader(seg.blockData[0][early]).encoding, ColumnEncoding.AllNull);
    assert.equal(decodeSegmentColumn(seg.blockData.map((b) => b[early]))[0].kind, 'const');
    assert.deepEqual(readRows(seg), expectedRows(events));
    for (const b of seg.stats.blocks) assert.ok(b.minTime <= b.maxTime);
    assert.equal(segmentColumnIndex(seg.stats, 'nope'), -1);
  });

  it('computes column stats', () => {
    const events: LogEvent[] = [];
    for (let i = 0; i < 400; i++) {
      events.push(
        ev(i, `GET /item/${i} é`, {
          level: ['info', 'warn', 'error'][i % 3],
          status: i % 2 === 0 ? 200 : 404.5,
          id: `id-${i}`,
          ok: i % 5 === 0,
          ...(i % 4 === 0 ? { mixed: i % 8 === 0 ? 'text' : 8 } : {}),
        }),
      );
    }
    const seg = encodeSegment(rowSetFromEvents(events), { ...OPTS, blockRows: 150 });
    const byName = new Map(seg.stats.columns.map((c) => [c.name, c]));
    const time = byName.get('_time')!;
    assert.deepEqual([time.counts.number, time.min, time.max, time.nullCount], [400, 0, 399, 0]);
    const raw = byName.get('_raw')!;
    assert.equal(raw.counts.string, 400);
    assert.equal(raw.dict, null);
    assert.equal(raw.minString, 'GET /item/0 é');
    assert.equal(raw.maxString, 'GET /item/99 é');
    const level = byName.get('level')!;
    assert.deepEqual(level.dict, ['error', 'info', 'warn']);
    assert.deepEqual([level.minString, level.maxString], ['error', 'warn']);
    const status = byName.get('status')!;
    assert.deepEqual(status.counts, { string: 0, number: 400, integer: 200, boolean: 0 });
    assert.deepEqual([status.min, status.max, status.minString], [200, 404.5, null]);
    assert.deepEqual(byName.get('id')!.dict, null); // 400 distinct > MAX_HEADER_DICT
    assert.equal(byName.get('ok')!.counts.boolean, 400);
    const mixed = byName.get('mixed')!;
    assert.deepEqual(mixed.counts, { string: 50, number: 50, integer: 50, boolean: 0 });
    assert.equal(mixed.nullCount, 300);
    assert.deepEqual(mixed.dict, ['text']);
    assert.deepEqual([mixed.min, mixed.max], [8, 8]);
    // Bytes add up; rawBytes counts UTF-8.
    let blockBytes = 0;
    for (const block of seg.blockData) for (const b of block) blockBytes += b.length;
    assert.equal(
      seg.stats.columns.reduce((a, c) => a + c.bytes, 0),
      blockBytes,
    );
    assert.equal(seg.stats.bytes, blockBytes + seg.blooms.reduce((a, b) => a + b.length, 0));
    assert.equal(
      seg.stats.rawBytes,
      events.reduce((a, e) => a + Buffer.byteLength(e.raw), 0),
    );
  });

  it('header dict holds up to MAX_HEADER_DICT distinct strings', () => {
    const mk = (distinct: number) =>
      encodeSegment(rowSetFromEvents(Array.from({ length: 1000 }, (_, i) => ev(i, 'x', { f: `v${i % distinct}` }))), OPTS);
    assert.equal(mk(MAX_HEADER_DICT).stats.columns[2].dict!.length, MAX_HEADER_DICT);
    assert.equal(mk(MAX_HEADER_DICT + 1).stats.columns[2].dict, null);
  });

  it('bloom covers _raw tokens and string field tokens, and no field=value tokens', () => {
    const events = [
      ev(1, 'Connection RESET by peer 10.0.0.7', { host: 'Web-01', status: 503, dur: 1.25, ok: true, msg: 'Disk Full' }),
      ev(2, '東京 エラー 😀', { host: 'db-2', status: 'unknown' }),
    ];
    const seg = encodeSegment(rowSetFromEvents(events), OPTS);
    const has = (t: string) => bloomMayContain(seg.blooms[0], seg.stats.blocks[0].bloom, t);
    for (const e of events) for (const t of tokenize(e.raw)) assert.ok(has(t), t);
    for (const t of ['web', '01', 'db', '2', 'disk', 'full', 'unknown']) assert.ok(has(t), t);
    // Numbers and booleans add no tokens; nor do `name=value` pairs (search prunes by value tokens).
    for (const t of ['host=web-01', 'status=503', '503', '1.25', 'ok=true', 'true']) assert.ok(!has(t), t);
    let misses = 0;
    for (let i = 0; i < 200; i++) if (!has(`absent${i}`)) misses++;
    assert.ok(misses > 190, `${misses}`);
    assert.ok(seg.stats.blocks[0].bloom.tokens > 10);
  });

  it('template, hex and packed-integer columns keep their stats and bloom tokens', () => {
    const hex = (i: number): string => ((i * 2654435761) % 2 ** 32).toString(16).padStart(8, '0');
    const events = Array.from({ length: 2000 }, (_, i) =>
      ev(
        i,
        `line ${i}`,
        i % 4 === 0
          ? { bytes: (i * 7919) % 20000 }
          : { user_id: `U${(i * 31) % 5000}`, client_ip: `10.0.${i >> 8}.${i & 255}`, request_id: hex(i), bytes: -i },
      ),
    );
    const seg = encodeSegment(rowSetFromEvents(events), OPTS);
    const encodings = new Map(seg.stats.columns.map((c, i) => [c.name, readBlockHeader(seg.blockData[0][i]).encoding]));
    assert.equal(encodings.get('user_id'), ColumnEncoding.StringTemplate);
    assert.equal(encodings.get('client_ip'), ColumnEncoding.StringTemplate);
    assert.equal(encodings.get('request_id'), ColumnEncoding.HexString);
    assert.equal(encodings.get('bytes'), ColumnEncoding.NumberPacked);
    assert.deepEqual(readRows(seg), expectedRows(events));
    const has = (t: string) => bloomMayContain(seg.blooms[0], seg.stats.blocks[0].bloom, t);
    for (const e of events.slice(0, 50)) {
      for (const v of Object.values(e.fields)) {
        if (typeof v === 'string') for (const t of tokenize(v)) assert.ok(has(t), t);
      }
    }
    const user = seg.stats.columns.find((c) => c.name === 'user_id')!;
    assert.equal(user.counts.string, 1500);
    assert.equal(user.nullCount, 500);
    const users = events
      .map((e) => e.fields.user_id)
      .filter((v): v is string => typeof v === 'string')
      .sort();
    assert.equal(user.minString, users[0]);
    assert.equal(user.maxString, users[users.length - 1]);
    const bytes = seg.stats.columns.find((c) => c.name === 'bytes')!;
    assert.equal(bytes.min, -1999);
    assert.equal(bytes.max, Math.max(...events.map((e) => e.fields.bytes as number)));
  });

  it('compaction path: decode -> rowSetFromBatches -> encode keeps the rows', () => {
    const a = [ev(50, 'a1', { x: 1 }), ev(10, 'a2', { y: 'q' })];
    const b = [ev(30, 'b1', { x: 'one' }), ev(10, 'b2', {})];
    const segA = encodeSegment(rowSetFromEvents(a), OPTS);
    const segB = encodeSegment(rowSetFromEvents(b), OPTS);
    const batches = [...decodeSegmentBatches(segA.stats, segA.blockData), ...decodeSegmentBatches(segB.stats, segB.blockData)];
    const merged = encodeSegment(rowSetFromBatches(batches), { ...OPTS, blockRows: 3 });
    // Stable: the two rows at time 10 keep input order (segment A first).
    assert.deepEqual(
      readRows(merged),
      expectedRows([...a.slice().sort((p, q) => p.time - q.time), ...b.slice().sort((p, q) => p.time - q.time)]),
    );
    const wanted = decodeSegmentBatches(merged.stats, merged.blockData, ['_time', 'missing']);
    assert.deepEqual(wanted[0].columns.get('missing'), { kind: 'const', value: null, length: 3 });
  });

  it('handles an empty row set and rejects bad input', () => {
    const seg = encodeSegment(emptyRowSet(), OPTS);
    assert.equal(seg.stats.rowCount, 0);
    assert.deepEqual(seg.blockData, []);
    assert.deepEqual(seg.blooms, []);
    const bad = rowSetFromEvents([ev(NaN, 'x')]);
    assert.throws(() => encodeSegment(bad, OPTS), /non-finite time/);
    const reserved = rowSetFromEvents([ev(1, 'x', { _raw: 'y' })]);
    assert.throws(() => encodeSegment(reserved, OPTS), /reserved/);
    assert.throws(() => encodeSegment(rowSetFromEvents([ev(1, 'x')]), { ...OPTS, blockRows: 0 }), /blockRows/);
  });

  it('gives each row block its own bloom filter: a token prunes the blocks without it', () => {
    const events = Array.from({ length: 30 }, (_, i) => ev(i, i === 25 ? 'rare needle here' : `common line ${i}`));
    const seg = encodeSegment(rowSetFromEvents(events), { compressionLevel: 1, blockRows: 10 });
    assert.equal(seg.blooms.length, 3);
    const holds = seg.blooms.map((bits, b) => bloomMayContain(bits, seg.stats.blocks[b].bloom, 'needle'));
    assert.deepEqual(holds, [false, false, true]);
  });

  it('appendEvent skips absent values', () => {
    const set = emptyRowSet();
    appendEvent(set, ev(1, 'a', { x: 1, y: null as unknown as FieldValue }));
    assert.deepEqual([...set.fields.keys()], ['x']);
  });

  it('round-trips random events (property)', () => {
    const value = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('a', 'b'),
      fc.integer({ min: -5, max: 5 }),
      fc.double(),
      fc.boolean(),
    );
    const event = fc.record({
      time: fc.integer({ min: 0, max: 50 }),
      raw: fc.string({ unit: 'grapheme', maxLength: 20 }),
      fields: fc.dictionary(fc.constantFrom('f1', 'f2', 'f3', 'Host'), value, { maxKeys: 3 }),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), fc.integer({ min: 1, max: 20 }), (raws, blockRows) => {
        const events = raws.map((r) => ev(r.time, r.raw, r.fields));
        const seg = encodeSegment(rowSetFromEvents(events), { compressionLevel: 1, blockRows });
        const got = readRows(seg);
        const want = expectedRows(events);
        assert.equal(got.length, want.length);
        for (let i = 0; i < want.length; i++) {
          assert.equal(got[i].time, want[i].time);
          assert.equal(got[i].raw, want[i].raw);
          assert.deepEqual(Object.keys(got[i].fields).sort(), Object.keys(want[i].fields).sort());
          for (const k of Object.keys(want[i].fields)) {
            const w = want[i].fields[k];
            const g = got[i].fields[k];
            // A mixed block goes through JSON, which turns -0 into 0.
            assert.ok(Object.is(g, w) || (Object.is(w, -0) && g === 0), `${k}: ${String(g)} vs ${String(w)}`);
          }
          // Each row's tokens are in its own block's filter.
          const block = Math.floor(i / blockRows);
          for (const t of tokenize(want[i].raw)) assert.ok(bloomMayContain(seg.blooms[block], seg.stats.blocks[block].bloom, t));
        }
      }),
      { numRuns: 300 },
    );
  });
});

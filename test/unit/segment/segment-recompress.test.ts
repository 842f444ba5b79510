import { strict as assert } from 'assert';
import fc from 'fast-check';
import { rowSetOfPieces } from '../../../storage/chunk-read';
import { mergeSegments, type MergeInput } from '../../../storage/codec-worker';
import { valueAt } from '../../../storage/column';
import type { FieldValue, LogEvent } from '../../../storage/event';
import { chunkEvents, groupChunkRows } from '../../../storage/event-chunk';
import type { Placement } from '../../../storage/partition';
import { sourceStatsOf } from '../../../storage/source-stats';
import { bloomMayContainAll, framesToRead } from '../../../storage/segment/bloom';
import { FRAME_ROWS } from '../../../storage/segment/framed-block';
import type { SegmentHeader } from '../../../storage/segment/header';
import { holdsFieldRefs } from '../../../storage/segment/raw-refs';
import { canRecompress, recompressSegment } from '../../../storage/segment/segment-recompress';
import { decodeSegmentBatches } from '../../../storage/segment/segment-decoder';
import { encodeSegment, type EncodeSegmentOptions, type EncodedSegment } from '../../../storage/segment/segment-encoder';
import { tokenize } from '../../../storage/segment/tokenizer';

const ONE_DAY: Placement = { bucketSpanMicros: 24 * 3_600_000_000, partitions: 1 };

/** The events as the flusher writes them: chunks of one key, encoded at the flush level. */
function flushed(events: readonly LogEvent[], blockRows: number): MergeInput {
  const [pieces] = groupChunkRows(chunkEvents(events, ONE_DAY), Number.MAX_SAFE_INTEGER);
  const rows = rowSetOfPieces(pieces);
  const segment = encodeSegment(rows, { compressionLevel: 1, blockRows });
  const header: SegmentHeader = { ...segment.stats, version: 3, id: 's1', index: 'main', bucket: 0, partition: 0, level: 0, createdAt: 0, sources: sourceStatsOf(rows) };
  return { header, blocks: segment.blockData, blooms: segment.blooms };
}

/** Asserts two encoded segments are the same, byte for byte. */
function assertSameSegment(actual: EncodedSegment & { sources?: unknown }, expected: EncodedSegment & { sources?: unknown }): void {
  assert.deepEqual(actual.stats, expected.stats);
  assert.deepEqual(actual.sources, expected.sources);
  assert.deepEqual(actual.blooms.map((bloom) => bloom.toString('hex')), expected.blooms.map((bloom) => bloom.toString('hex')));
  assert.deepEqual(
    actual.blockData.map((columns) => columns.map((block) => block.toString('hex'))),
    expected.blockData.map((columns) => columns.map((block) => block.toString('hex'))),
  );
}

/** Access lines that repeat their ids, addresses and numbers, as real logs do. */
function accessEvents(count: number, seed = 1): LogEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const fields: Record<string, FieldValue> = {
      client: `10.0.${(i * seed) % 7}.${i % 251}`,
      user: `u${(i * 7919) % 5003}`,
      request_id: ((i * 2654435761) >>> 0).toString(16).padStart(8, '0'),
      status: [200, 404, 500][i % 3],
      bytes: (i * 37) % 20000,
      host: `web-${i % 4}`,
    };
    if (i % 5 === 0) fields.latency = i / 7;
    if (i % 11 === 0) fields.ok = i % 2 === 0;
    return {
      time: 1_700_000_000_000_000 + ((i * 7919) % count) * 1000,
      raw: `${fields.client} - ${fields.user} [${fields.request_id}] "GET /api/v1/orders/${i % 977} HTTP/1.1" ${fields.status} ${fields.bytes} host=${fields.host}`,
      index: 'main',
      fields,
    };
  });
}

const COMPACTION: EncodeSegmentOptions = { compressionLevel: 9, blockRows: FRAME_ROWS * 2, rawRefs: true };

describe('recompressing a lone segment (compaction keeps its columns)', () => {
  it('writes what a full re-encode writes, byte for byte, with framed blocks and a short last block', () => {
    const input = flushed(accessEvents(FRAME_ROWS * 5 + 123), COMPACTION.blockRows);
    assert.equal(canRecompress({ header: input.header, blocks: input.blocks, blooms: input.blooms ?? [] }, COMPACTION), true);
    const kept = mergeSegments([input], COMPACTION);
    const decoded = mergeSegments([{ header: input.header, blocks: input.blocks }], COMPACTION);
    assertSameSegment(kept, decoded);
    assert.ok(holdsFieldRefs(kept.blockData[0][1]), 'the lines are stored as skeletons');
    assert.ok(kept.stats.bytes < input.header.bytes, `${kept.stats.bytes} bytes against ${input.header.bytes} flushed`);
  });

  it('writes what a full re-encode writes for any small segment (property: types, nulls, unicode, no fields)', () => {
    const value = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', '7', '.', '-', ' ', 'é', '\u0000'), maxLength: 8 }),
      fc.integer({ min: -100_000, max: 100_000 }),
      fc.double({ noNaN: true }),
      fc.boolean(),
    );
    const event = fc.record({
      time: fc.integer({ min: 0, max: 3_600_000_000 }),
      values: fc.dictionary(fc.constantFrom('a', 'b', 'id', 'n'), value, { maxKeys: 4 }),
      text: fc.string({ unit: 'binary', maxLength: 12 }),
    });
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 60 }), fc.constantFrom(7, 16, 64), (drawn, blockRows) => {
        const events: LogEvent[] = drawn.map(({ time, values, text }) => ({
          time,
          raw: `${text} ${Object.values(values).map(String).join(' ')} end`,
          index: 'main',
          fields: values,
        }));
        const options = { ...COMPACTION, blockRows };
        const input = flushed(events, blockRows);
        assertSameSegment(mergeSegments([input], options), mergeSegments([{ header: input.header, blocks: input.blocks }], options));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps every row, and its search finds every token through the kept block filters', () => {
    const events = accessEvents(FRAME_ROWS * 5);
    const input = flushed(events, COMPACTION.blockRows);
    const segment = recompressSegment({ header: input.header, blocks: input.blocks, blooms: input.blooms ?? [] }, COMPACTION);
    const lines = decodeSegmentBatches(segment.stats, segment.blockData, ['_raw', 'user']).flatMap((batch) =>
      Array.from({ length: batch.rowCount }, (_, row) => valueAt(batch.columns.get('_raw')!, row)),
    );
    assert.deepEqual([...lines].sort(), events.map((event) => event.raw).sort());
    let start = 0;
    segment.stats.blocks.forEach((block, b) => {
      for (let row = start; row < start + block.rows; row += 997) {
        const tokens = tokenize(lines[row] as string);
        assert.ok(bloomMayContainAll(segment.blooms[b], block.bloom, tokens), `block ${b} row ${row}`);
        if (block.frames === undefined) continue; // a block of a frame or less has only its own filter
        const frame = Math.floor((row - start) / FRAME_ROWS);
        assert.ok(framesToRead(segment.blooms[b], block, tokens).frames.includes(frame), `block ${b} frame ${frame}`);
      }
      start += block.rows;
    });
  });

  it('leaves to a full re-encode what it cannot keep: other block sizes, references, no filters, merges', () => {
    const input = flushed(accessEvents(FRAME_ROWS + 10), 1000);
    const stored = { header: input.header, blocks: input.blocks, blooms: input.blooms ?? [] };
    assert.equal(canRecompress(stored, { ...COMPACTION, blockRows: 1000 }), true);
    assert.equal(canRecompress(stored, { ...COMPACTION, blockRows: 2000 }), false, 'blocks of another size');
    assert.equal(canRecompress(stored, { ...COMPACTION, blockRows: 1000, rawRefs: false }), false, 'no references asked for');
    assert.equal(canRecompress({ ...stored, blooms: [] }, { ...COMPACTION, blockRows: 1000 }), false, 'filters not read');
    const withRefs = recompressSegment(stored, { ...COMPACTION, blockRows: 1000 });
    const again = { header: { ...input.header, ...withRefs.stats }, blocks: withRefs.blockData, blooms: withRefs.blooms };
    assert.equal(canRecompress(again, { ...COMPACTION, blockRows: 1000 }), false, '_raw holds references already');
    // A merge of two segments still decodes them (and gives the same rows).
    const merged = mergeSegments([input, { ...input, header: { ...input.header, id: 's2' } }], { ...COMPACTION, blockRows: 1000 });
    assert.equal(merged.stats.rowCount, 2 * input.header.rowCount);
  });
});

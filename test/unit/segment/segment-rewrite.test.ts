import { strict as assert } from 'assert';
import fc from 'fast-check';
import { rowSetOfPieces } from '../../../storage/buffer/chunk-read';
import { mergeSegments, type MergeInput } from '../../../storage/threads/codec-worker';
import { valueAt } from '../../../storage/core/column';
import type { FieldValue, LogEvent } from '../../../storage/core/event';
import { chunkEvents, groupChunkRows } from '../../../storage/buffer/event-chunk';
import type { Placement } from '../../../storage/core/partition';
import { sourceStatsOf } from '../../../storage/segment/source-stats';
import { bloomMayContainAll, framesToRead } from '../../../storage/segment/bloom';
import { FRAME_ROWS } from '../../../storage/segment/framed-block';
import type { SegmentHeader, SourceStats } from '../../../storage/segment/header';
import { holdsFieldRefs } from '../../../storage/segment/raw-refs';
import { canRewrite, rewriteSegments, type StoredSegment } from '../../../storage/segment/segment-rewrite';
import { decodeSegmentBatches } from '../../../storage/segment/segment-decoder';
import { encodeSegment, type EncodeSegmentOptions, type EncodedSegment } from '../../../storage/segment/segment-encoder';
import { tokenize } from '../../../storage/segment/tokenizer';
import { fuzzRuns } from '../../helpers/fuzz';

const ONE_DAY: Placement = { bucketSpanMicros: 24 * 3_600_000_000, partitions: 1 };

/** The events as the flusher writes them: chunks of one key, encoded at the flush level. */
function flushed(events: readonly LogEvent[], blockRows: number): MergeInput {
  const [pieces] = groupChunkRows(chunkEvents(events, ONE_DAY), Number.MAX_SAFE_INTEGER);
  const rows = rowSetOfPieces(pieces);
  const segment = encodeSegment(rows, { compressionLevel: 1, blockRows });
  const header: SegmentHeader = {
    ...segment.stats,
    version: 3,
    id: 's1',
    index: 'main',
    bucket: 0,
    partition: 0,
    level: 0,
    createdAt: 0,
    sources: sourceStatsOf(rows),
  };
  return { header, blocks: segment.blockData, blooms: segment.blooms };
}

function stored(input: MergeInput): StoredSegment {
  return { header: input.header, blocks: input.blocks, blooms: input.blooms ?? [] };
}

/** Asserts two encoded segments are the same, byte for byte. */
function assertSameSegment(actual: EncodedSegment & { sources?: unknown }, expected: EncodedSegment & { sources?: unknown }): void {
  // Through JSON: a mixed block stores -0 as 0 (JSON), but the flush's header kept -0 as its min,
  // and a kept header keeps it; a re-encode reads 0 back. The blocks themselves are compared exactly.
  assert.deepEqual(JSON.parse(JSON.stringify(actual.stats)), JSON.parse(JSON.stringify(expected.stats)));
  assert.deepEqual(actual.sources, expected.sources);
  assert.deepEqual(
    actual.blooms.map((bloom) => bloom.toString('hex')),
    expected.blooms.map((bloom) => bloom.toString('hex')),
  );
  assert.deepEqual(
    actual.blockData.map((columns) => columns.map((block) => block.toString('hex'))),
    expected.blockData.map((columns) => columns.map((block) => block.toString('hex'))),
  );
}

/**
 * A column's header stats as a merge and a full re-encode both write them, but for block cuts:
 * bytes aside; the sum apart (float addition follows the block cuts); inexact top values as
 * inexact only (their heavy-hitters cut follows the block cuts too).
 */
function comparableColumns(segment: EncodedSegment): unknown {
  return JSON.parse(
    JSON.stringify(
      segment.stats.columns.map(({ sum: _sum, ...column }) => ({
        ...column,
        bytes: 0,
        ...(column.top === undefined || column.topExact === true ? {} : { top: 'inexact' }),
      })),
    ),
  );
}

/** The columns' sums, equal to a relative 1e-9 (or both absent). */
function assertSameSums(actual: EncodedSegment, expected: EncodedSegment): void {
  expected.stats.columns.forEach((column, c) => {
    const sum = actual.stats.columns[c].sum;
    if (column.sum === undefined || sum === undefined) return assert.equal(sum, column.sum, column.name);
    assert.ok(Math.abs(sum - column.sum) <= 1e-9 * Math.max(1, Math.abs(column.sum)), `${column.name}: ${sum} vs ${column.sum}`);
  });
}

/** Every row, column by column, in stored order. */
function allRows(segment: EncodedSegment): unknown[] {
  return decodeSegmentBatches(segment.stats, segment.blockData).flatMap((batch) =>
    Array.from({ length: batch.rowCount }, (_, row) => [...batch.columns].map(([name, column]) => [name, valueAt(column, row)])),
  );
}

function lines(segment: EncodedSegment): string[] {
  return decodeSegmentBatches(segment.stats, segment.blockData, ['_raw']).flatMap((batch) =>
    Array.from({ length: batch.rowCount }, (_, row) => valueAt(batch.columns.get('_raw')!, row) as string),
  );
}

/** Every block filter, and the filter of the frame it is in, lets through the tokens of every ~1000th line. */
function assertFindsEveryLine(segment: EncodedSegment): void {
  const all = lines(segment);
  let start = 0;
  segment.stats.blocks.forEach((block, b) => {
    for (let row = start; row < start + block.rows; row += 997) {
      const tokens = tokenize(all[row]);
      assert.ok(bloomMayContainAll(segment.blooms[b], block.bloom, tokens), `block ${b} row ${row}`);
      if (block.frames === undefined) continue; // a block of a frame or less has only its own filter
      // The frame the header says the row is in.
      let frame = 0;
      for (let first = block.frames[0].rows; first <= row - start; first += block.frames[frame].rows) frame++;
      assert.ok(framesToRead(segment.blooms[b], block, tokens).frames.includes(frame), `block ${b} frame ${frame}`);
    }
    start += block.rows;
  });
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

describe("compaction that keeps its inputs' columns (segment-rewrite.ts)", () => {
  it('writes what a full re-encode writes, byte for byte, with framed blocks and a short last block', () => {
    const input = flushed(accessEvents(FRAME_ROWS * 5 + 123), COMPACTION.blockRows);
    assert.equal(canRewrite([stored(input)], COMPACTION), true);
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
    const segment = rewriteSegments([stored(flushed(events, COMPACTION.blockRows))], COMPACTION);
    assert.deepEqual(lines(segment).sort(), events.map((event) => event.raw).sort());
    assertFindsEveryLine(segment);
  });

  it('merges inputs that follow one another in time into their blocks, with the rows, stats and sources of a full re-encode', () => {
    const count = FRAME_ROWS * 3 + 1000; // blocks of 8,192 and 5,096 rows
    const early = accessEvents(count).map((event, i) => ({ ...event, fields: { ...event.fields, source: i % 3 === 0 ? 'app' : 'nginx' } }));
    // The later input has a field the first lacks, and lacks one the first has.
    const late = accessEvents(count, 3).map((event, i) => {
      const fields: Record<string, FieldValue> = { ...event.fields, zone: `z${i % 9}`, source: 'nginx' };
      delete fields.latency;
      return { ...event, time: event.time + count * 1000, fields };
    });
    const second = flushed(late, COMPACTION.blockRows);
    const inputs = [flushed(early, COMPACTION.blockRows), { ...second, header: { ...second.header, id: 's2' } }];
    assert.equal(canRewrite(inputs.map(stored), COMPACTION), true);
    const kept = mergeSegments(inputs, COMPACTION);
    const decoded = mergeSegments(
      inputs.map(({ header, blocks }) => ({ header, blocks })),
      COMPACTION,
    );
    const inputBlocks = inputs.flatMap((input) => input.header.blocks.map((block) => block.rows));
    assert.deepEqual(
      kept.stats.blocks.map((block) => block.rows),
      inputBlocks,
    );
    assert.deepEqual(
      decoded.stats.blocks.map((block) => block.rows),
      [8192, 8192, 8192, 2000],
      'a full re-encode cuts even blocks',
    );
    assert.deepEqual(allRows(kept), allRows(decoded));
    assert.deepEqual(comparableColumns(kept), comparableColumns(decoded));
    assertSameSums(kept, decoded);
    const { rowCount, minTime, maxTime, rawBytes } = decoded.stats;
    assert.deepEqual(
      [kept.stats.rowCount, kept.stats.minTime, kept.stats.maxTime, kept.stats.rawBytes],
      [rowCount, minTime, maxTime, rawBytes],
    );
    const sources = (list: SourceStats[]): unknown => list.map((source) => ({ ...source, fields: [...source.fields].sort() }));
    assert.deepEqual(sources(kept.sources), sources(decoded.sources));
    assertFindsEveryLine(kept);
  });

  it('merges any inputs that follow one another as a full re-encode would, but for block cuts (property: types, nulls, absent fields)', () => {
    const value = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', '7', '.', '-', ' ', 'é'), maxLength: 6 }),
      fc.integer({ min: -1000, max: 1000 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
    );
    const row = fc.record({
      values: fc.dictionary(fc.constantFrom('a', 'b', 'id', 'source'), value, { maxKeys: 4 }),
      text: fc.string({ maxLength: 10 }),
    });
    // Inputs of whole blocks (so the merge keeps them), each later in time than the one before.
    const input = fc.integer({ min: 1, max: 4 }).chain((blocks) => fc.array(row, { minLength: blocks * 8, maxLength: blocks * 8 }));
    fc.assert(
      fc.property(fc.array(input, { minLength: 2, maxLength: 3 }), (drawn) => {
        const options = { ...COMPACTION, blockRows: 8 };
        const inputs = drawn.map((rows, k) => {
          const events: LogEvent[] = rows.map(({ values, text }, i) => ({
            time: k * 1_000_000 + i * 7,
            raw: `${text} ${Object.values(values).map(String).join(' ')} end`,
            index: 'main',
            fields: values,
          }));
          const flushedInput = flushed(events, options.blockRows);
          return { ...flushedInput, header: { ...flushedInput.header, id: `s${k}` } };
        });
        assert.equal(canRewrite(inputs.map(stored), options), true);
        const kept = mergeSegments(inputs, options);
        const decoded = mergeSegments(
          inputs.map(({ header, blocks }) => ({ header, blocks })),
          options,
        );
        assert.equal(kept.keptBlocks, true);
        assert.deepEqual(allRows(kept), allRows(decoded));
        // Through JSON for -0 (see assertSameSegment); block sizes, bytes and sums aside, the same
        // header (random doubles make no sum an order of addition keeps within a bound).
        assert.deepEqual(comparableColumns(kept), comparableColumns(decoded));
        const sources = (list: SourceStats[]): unknown => list.map((source) => ({ ...source, fields: [...source.fields].sort() }));
        assert.deepEqual(sources(kept.sources), sources(decoded.sources));
      }),
      // 40 runs take ~6 s in the suite; FUZZ_RUNS runs more.
      { numRuns: fuzzRuns(40) },
    );
  });

  it('leaves to a full re-encode what it cannot keep: other block sizes, references, no filters, merges', () => {
    const input = flushed(accessEvents(FRAME_ROWS + 10), 1000);
    const options = { ...COMPACTION, blockRows: 1000 };
    assert.equal(canRewrite([stored(input)], options), true);
    assert.equal(canRewrite([stored(input)], { ...options, blockRows: 500 }), false, 'blocks longer than a block');
    assert.equal(canRewrite([stored(input)], { ...options, rawRefs: false }), false, 'no references asked for');
    assert.equal(canRewrite([{ ...stored(input), blooms: [] }], options), false, 'filters not read');
    const withRefs = rewriteSegments([stored(input)], options);
    const again = { header: { ...input.header, ...withRefs.stats }, blocks: withRefs.blockData, blooms: withRefs.blooms };
    assert.equal(canRewrite([again], options), false, '_raw holds references already');
    // Many short blocks are cut again into even ones.
    const small = [0, 1, 2, 3].map((k) => {
      const input = flushed(
        accessEvents(600).map((event) => ({ ...event, time: event.time + k * 1e9 })),
        1000,
      );
      return stored({ ...input, header: { ...input.header, id: `small${k}` } });
    });
    assert.equal(canRewrite(small.slice(0, 1), options), true, 'a lone short block is kept');
    assert.equal(canRewrite(small, options), false, 'four blocks of 600 rows in a merge');
    // Inputs whose times overlap are decoded and sorted again (and give every row).
    assert.equal(canRewrite([stored(input), stored(input)], options), false, 'times overlap');
    const merged = mergeSegments([input, { ...input, header: { ...input.header, id: 's2' } }], options);
    assert.equal(merged.stats.rowCount, 2 * input.header.rowCount);
  });
});

import { strict as assert } from 'assert';
import { valueAt } from '../../../storage/core/column';
import type { LogEvent } from '../../../storage/core/event';
import {
  bloomHashCount,
  bloomMayContainAll,
  DEFAULT_BLOOM_BITS_PER_TOKEN,
  framesMayContainAll,
  UNFRAMED_BLOOM_BITS_PER_TOKEN,
} from '../../../storage/segment/bloom';
import {
  ColumnEncoding,
  decodeColumnBlock,
  decodeColumnBlockMatching,
  decodeColumnBlockRows,
  readBlockHeader,
} from '../../../storage/segment/column-codec';
import { FRAME_ROWS, frameSizes, NEWEST_FRAME_ROWS, openFramed } from '../../../storage/segment/framed-block';
import { LiteralByteSearch } from '../../../storage/segment/literal-search';
import { rowSetFromEvents } from '../../../storage/segment/row-set';
import { encodeSegment } from '../../../storage/segment/segment-encoder';

/** Frames of 4,096, 4,096, 2,048, 1,024, 512 and 256 rows (frameSizes), the needle in the second. */
const FRAMES = [FRAME_ROWS, FRAME_ROWS, 2048, 1024, 512, 256];
const ROWS = FRAMES.reduce((sum, rows) => sum + rows, 0);
const NEEDLE_ROW = FRAME_ROWS + 7;

function events(): LogEvent[] {
  return Array.from({ length: ROWS }, (_, i) => ({
    time: 1_000_000 + i,
    // Mostly ASCII lines, a UTF-8 frame, and one rare token. Methods vary so that the lines share
    // no skeleton (such a frame would be stored as a template, which the byte search cannot read).
    raw: `${i < FRAME_ROWS ? 'straße' : ['GET', 'POST', 'DELETE'][i % 3]} /api/v1/items/${i} user=u${i % 97}${i === NEEDLE_ROW ? ' trace=ZQ7needleXV' : ''}`,
    index: 'main',
    fields: { host: `web-${i % 4}` },
  }));
}

function rawStrings(values: readonly (string | null)[]): string[] {
  return values.map((value) => value ?? '<null>');
}

describe('frame sizes', () => {
  it('doubles from the newest end up to FRAME_ROWS, oldest first', () => {
    assert.equal(NEWEST_FRAME_ROWS, 256);
    assert.deepEqual(frameSizes(12032), [4096, 4096, 2048, 1024, 512, 256]);
    assert.deepEqual(frameSizes(16384), [256, 4096, 4096, 4096, 2048, 1024, 512, 256]);
    assert.deepEqual(frameSizes(1000), [744, 256]);
    assert.deepEqual(frameSizes(513), [257, 256]);
  });

  it('joins an oldest remainder shorter than a newest frame to the frame after it', () => {
    assert.deepEqual(frameSizes(256 + 512 + 1024 + 100), [1124, 512, 256]);
    assert.deepEqual(frameSizes(7940), [4100, 2048, 1024, 512, 256]);
  });

  it('keeps a block of at most two newest frames whole', () => {
    assert.equal(frameSizes(1), null);
    assert.equal(frameSizes(512), null);
  });

  it('adds up to the block for every size', () => {
    for (let rows = 513; rows < 40_000; rows += 97) {
      const sizes = frameSizes(rows)!;
      assert.equal(
        sizes.reduce((sum, size) => sum + size, 0),
        rows,
      );
      assert.ok(
        sizes.every((size) => size >= NEWEST_FRAME_ROWS && size < FRAME_ROWS + NEWEST_FRAME_ROWS),
        `${rows}: ${sizes.join(',')}`,
      );
      assert.equal(sizes[sizes.length - 1], NEWEST_FRAME_ROWS);
    }
  });
});

describe('framed _raw blocks', () => {
  const segment = encodeSegment(rowSetFromEvents(events()), { compressionLevel: 3, blockRows: FRAME_ROWS * 4 });
  const raw = segment.blockData[0][1];
  const meta = segment.stats.blocks[0];

  it('frames a row block and reads it back whole', () => {
    assert.equal(readBlockHeader(raw).encoding, ColumnEncoding.Framed);
    const { frames } = openFramed(raw);
    assert.deepEqual(
      frames.map((frame) => frame.rows),
      FRAMES,
    );
    assert.deepEqual(
      meta.frames?.map((frame) => frame.rows),
      FRAMES,
    );
    const column = decodeColumnBlock(raw);
    assert.equal(column.kind, 'string');
    assert.deepEqual(
      column.kind === 'string' && rawStrings(column.values),
      events().map((event) => event.raw),
    );
  });

  it('keeps a block of at most two newest frames whole (and version 1 segments read as before)', () => {
    const small = encodeSegment(rowSetFromEvents(events().slice(0, 2 * NEWEST_FRAME_ROWS)), {
      compressionLevel: 3,
      blockRows: FRAME_ROWS * 4,
    });
    assert.equal(readBlockHeader(small.blockData[0][1]).encoding, ColumnEncoding.String);
    assert.equal(small.stats.blocks[0].frames, undefined);
  });

  it('gives a block without frame filters a denser filter, so absent tokens rarely pass it', () => {
    const small = encodeSegment(rowSetFromEvents(events().slice(0, 2 * NEWEST_FRAME_ROWS)), {
      compressionLevel: 3,
      blockRows: FRAME_ROWS * 4,
    });
    const smallMeta = small.stats.blocks[0].bloom;
    assert.equal(smallMeta.hashes, bloomHashCount(UNFRAMED_BLOOM_BITS_PER_TOKEN));
    assert.ok(smallMeta.bits >= smallMeta.tokens * UNFRAMED_BLOOM_BITS_PER_TOKEN, `${smallMeta.bits} bits for ${smallMeta.tokens} tokens`);
    assert.equal(meta.bloom.hashes, bloomHashCount(DEFAULT_BLOOM_BITS_PER_TOKEN), 'a framed block keeps the sparser block filter');
    // ~0.3% false positives at 12 bits a token; 8 bits would let about 2% through (some 40 of 2,000).
    const passed = Array.from({ length: 2000 }, (_, i) => `absent${i}x`).filter((token) =>
      bloomMayContainAll(small.blooms[0], smallMeta, [token]),
    ).length;
    assert.ok(passed < 20, `${passed} of 2,000 absent tokens passed`);
  });

  it('gives each frame a filter of its _raw tokens, stored after the block filter', () => {
    assert.equal(meta.frames?.length, FRAMES.length);
    const bloom = segment.blooms[0];
    assert.equal(bloom.length, (meta.bloom.bits + (meta.frames ?? []).reduce((sum, frame) => sum + frame.bloom.bits, 0)) / 8);
    assert.equal(bloomMayContainAll(bloom, meta.bloom, ['zq7needlexv']), true);
    // A frame holding the tokens is always kept; the sparse frame filters may keep others too.
    assert.ok(framesMayContainAll(bloom, meta, ['zq7needlexv', 'trace']).includes(1));
    assert.ok(framesMayContainAll(bloom, meta, ['straße']).includes(0));
    assert.deepEqual(framesMayContainAll(bloom, meta, ['api']), [0, 1, 2, 3, 4, 5]);
    const keptForAbsent = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => framesMayContainAll(bloom, meta, [`absent${i}`]).length);
    assert.ok(keptForAbsent.reduce((sum, kept) => sum + kept, 0) < 24, 'absent tokens keep few frames');
  });

  it('a search decodes only the listed frames and finds its rows there', () => {
    const search = LiteralByteSearch.of('zq7needlexv')!;
    const inFrame = decodeColumnBlockMatching(raw, [search], [1]);
    assert.deepEqual(inFrame.rows === null ? null : [...inFrame.rows], [NEEDLE_ROW]);
    assert.equal(valueAt(inFrame.column, NEEDLE_ROW), events()[NEEDLE_ROW].raw);
    assert.deepEqual([...(decodeColumnBlockMatching(raw, [search], [0, 2]).rows ?? [])], []);
    // All frames: the plain ones are searched; a short one the encoder made a dictionary keeps all its rows candidates.
    const { frames } = openFramed(raw);
    const plain = frames.map((frame) => readBlockHeader(frame.data).encoding === ColumnEncoding.String);
    assert.equal(plain[1], true, 'the needle frame is plain text');
    const dictionaryRows = FRAMES.reduce((sum, rows, f) => sum + (plain[f] ? 0 : rows), 0);
    const everywhere = [...(decodeColumnBlockMatching(raw, [search], null).rows ?? [])];
    assert.deepEqual(
      everywhere.filter((row) => row < FRAME_ROWS * 2),
      [NEEDLE_ROW],
    );
    assert.equal(everywhere.length, 1 + dictionaryRows);
    // Without a byte condition (no ASCII in the literal), every row of the listed frames is a candidate.
    const all = decodeColumnBlockMatching(raw, [], [0]);
    assert.equal(all.rows?.length, FRAME_ROWS);
    assert.equal(valueAt(all.column, 5), events()[5].raw);
    const unicode = decodeColumnBlockMatching(raw, [LiteralByteSearch.of('STRAßE')!], [0]);
    assert.equal(unicode.rows?.length, FRAME_ROWS);
  });

  it('decodes chosen rows across frames', () => {
    const rows = [3, FRAME_ROWS + 1, ROWS - 1];
    const column = decodeColumnBlockRows(raw, rows);
    for (const row of rows) assert.equal(valueAt(column, row), events()[row].raw);
  });
});

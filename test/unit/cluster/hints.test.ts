import { strict as assert } from 'assert';
import { AppliedHints, HintStore } from '../../../node/cluster/hints';
import { encodeChunkRecord, decodeChunkRecord } from '../../../storage/buffer/chunk-record';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { StorageEngine } from '../../../storage/engine';
import { indexMatcher } from '../../../storage/scan';
import { tempDir } from '../../helpers/server';
import { openTestEngine } from '../../helpers/engine';

const PLACEMENT = { bucketSpanMicros: 3600e6, partitions: 1 };

function open(dataDir: string): Promise<StorageEngine> {
  return openTestEngine({ dataDir, placement: PLACEMENT });
}

function record(tag: string): Buffer {
  const time = Date.UTC(2026, 0, 1) * 1000;
  return encodeChunkRecord(chunkEvents([{ time, raw: `hinted ${tag}`, index: 'main', fields: {} }], PLACEMENT), PLACEMENT);
}

/** Closes RocksDB without flushing the write buffer, as kill -9 would leave it. */
async function crash(engine: StorageEngine): Promise<void> {
  await engine.rocks.close();
  await engine.closePools();
}

describe('hints', () => {
  it('keep records per target in seq order across restarts, and drop the ones done', async () => {
    const dir = tempDir();
    let engine = await open(dir);
    let hints = await HintStore.open(engine.records('hints'));
    const first = await hints.add('b', record('1'));
    await hints.add('c', record('2'));
    const third = await hints.add('b', record('3'));
    assert.ok(third > first);
    assert.deepEqual(
      [...hints.pendingByTarget()],
      [
        ['b', 2],
        ['c', 1],
      ],
    );
    await crash(engine);

    engine = await open(dir);
    hints = await HintStore.open(engine.records('hints'));
    assert.equal(hints.pending('b'), 2);
    const oldest = await hints.oldest('b', 10);
    assert.deepEqual(
      oldest.map((hint) => hint.seq),
      [first, third],
    );
    assert.ok(oldest[0]!.record.equals(record('1')));
    await hints.done('b', oldest[0]!);
    assert.equal(hints.pending('b'), 1);
    const fourth = await hints.add('b', record('4'));
    assert.ok(fourth > third, 'seqs keep growing after a restart');
    assert.deepEqual(
      (await hints.oldest('b', 1)).map((hint) => hint.seq),
      [third],
    );
    await engine.close();
  });

  it('number adds made at once in the order they were asked, count their bytes, and keep the log id across restarts', async () => {
    const dir = tempDir();
    let engine = await open(dir);
    let hints = await HintStore.open(engine.records('hints'));
    const logId = hints.logId;
    assert.match(logId, /^[0-9a-f]{16}$/);
    const records = ['a', 'b', 'c', 'd', 'e'].map(record);
    const seqs = await Promise.all(records.map((value) => hints.add('t', value)));
    assert.deepEqual(seqs, [1, 2, 3, 4, 5]);
    const bytes = records.reduce((sum, value) => sum + value.length, 0);
    assert.equal(hints.pendingBytes('t'), bytes);
    await assert.rejects(hints.add('a/b', records[0]!), /a node id has no '\/'/);
    await crash(engine);

    engine = await open(dir);
    hints = await HintStore.open(engine.records('hints'));
    assert.equal(hints.logId, logId, 'the same log after a restart');
    assert.equal(hints.pending('t'), 5);
    assert.equal(hints.pendingBytes('t'), bytes);
    const oldest = await hints.oldest('t', 2);
    assert.equal(oldest.length, 2);
    for (const hint of oldest) await hints.done('t', hint);
    assert.equal(hints.pendingBytes('t'), bytes - records[0]!.length - records[1]!.length);
    await engine.close();

    const fresh = await open(tempDir());
    assert.notEqual((await HintStore.open(fresh.records('hints'))).logId, logId, 'an empty data dir starts another log');
    await fresh.close();
  });

  it('on the owner, a replayed record and its applied mark commit together, so a repeat is applied once, even across a crash', async () => {
    const dir = tempDir();
    let engine = await open(dir);
    let applied = await AppliedHints.open(engine.records('applied-hints'));
    const value = record('x');
    const { chunks } = decodeChunkRecord(value);
    assert.equal(applied.applied('a', 7), false);
    await engine.appendRecord(chunks, value, [applied.markOp('a', 7)]);
    applied.committed('a', 7);
    assert.equal(applied.applied('a', 7), true);
    assert.equal(applied.applied('a', 6), true);
    assert.equal(applied.applied('a', 8), false);
    assert.equal(applied.applied('other', 1), false);
    await crash(engine);

    engine = await open(dir);
    applied = await AppliedHints.open(engine.records('applied-hints'));
    assert.equal(applied.applied('a', 7), true, 'the mark survived with the record');
    const rows = await engine.countRows({ index: indexMatcher(['*']), fromMicros: 0, toMicros: Number.MAX_SAFE_INTEGER });
    assert.equal(rows, 1);
    await engine.close();
  });
});

import { strict as assert } from 'assert';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { StorageEngine, type EngineOptions } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import { keyOf, keyString } from '../../../storage/core/partition';
import { indexMatcher, type ScanRequest } from '../../../storage/scan';
import { valueAt } from '../../../storage/core/column';
import { decodeChunkRecord, encodeChunkRecord } from '../../../storage/buffer/chunk-record';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import { compactionZstdLevel, flushZstdLevel, pickCompactions } from '../../../storage/lifecycle/compactor';
import type { SegmentHeader } from '../../../storage/segment/header';
import { QUARANTINE_PREFIX, WAL_PREFIX, walKey } from '../../../storage/core/keys';
import { overClaimingRecord } from '../../helpers/chunk-records';

const HOUR = 3600_000_000;

function options(dataDir: string, overrides: Partial<EngineOptions> = {}): EngineOptions {
  return {
    dataDir,
    placement: { bucketSpanMicros: HOUR, partitions: 1 },
    flushIntervalMs: 60_000,
    segmentMaxEvents: 1000,
    compressionLevel: 3,
    fsync: false,
    compactionIntervalMs: 60_000,
    retentionMs: 7 * 24 * 3600_000,
    codecWorkers: 0,
    ...overrides,
  };
}

function event(i: number, time: number, index = 'main'): LogEvent {
  return {
    time,
    raw: `event ${i} host=h${i % 3} status=${200 + (i % 5)}`,
    index,
    fields: { host: `h${i % 3}`, status: 200 + (i % 5), source: i % 2 === 0 ? 'even' : 'odd', ok: i % 2 === 0 },
  };
}

function all(from = 0, to = Number.MAX_SAFE_INTEGER): ScanRequest {
  return { index: indexMatcher(['*']), fromMicros: from, toMicros: to, columns: null };
}

async function collect(engine: StorageEngine, request: ScanRequest): Promise<Map<string, unknown>[]> {
  const plan = await engine.planScan(request);
  const rows: Map<string, unknown>[] = [];
  for await (const batch of engine.scanBatches(plan, request)) {
    for (let row = 0; row < batch.rowCount; row++) {
      const out = new Map<string, unknown>();
      for (const [name, column] of batch.columns) out.set(name, valueAt(column, row));
      rows.push(out);
    }
  }
  return rows;
}

/** Closes RocksDB without flushing the write buffer, as a crash would leave it. */
async function crash(engine: StorageEngine): Promise<void> {
  await engine.rocks.close();
  await engine.closePools();
}

describe('storage engine', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-engine-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('replays chunk records, re-keying their chunks when the placement changed between runs', async () => {
    const base = 10.75 * HOUR;
    const events = Array.from({ length: 40 }, (_, i) => event(i, base + i * 90_000_000)); // 10:45 to 11:43
    const placement = { bucketSpanMicros: HOUR, partitions: 1 };
    const record = encodeChunkRecord(chunkEvents(events, placement), placement);
    let engine = await StorageEngine.open(options(dir));
    await engine.appendRecord(decodeChunkRecord(record).chunks, record);
    assert.equal((await collect(engine, all())).length, 40);
    await crash(engine);
    // Same placement: the chunks come back as they were.
    engine = await StorageEngine.open(options(dir));
    assert.deepEqual(engine.replayed, { records: 1, events: 40, quarantined: [] });
    assert.deepEqual([...engine.buffer.generations()[0].tables.keys()].sort(), ['main|36000000000|0', 'main|39600000000|0']);
    await crash(engine);
    // A 30-minute bucket span: the same events, keyed anew.
    engine = await StorageEngine.open(options(dir, { placement: { bucketSpanMicros: HOUR / 2, partitions: 1 } }));
    assert.equal(engine.buffer.generations()[0].tables.size, 3);
    const rows = await collect(engine, all());
    assert.deepEqual(rows.map((row) => row.get('_raw')).sort(), events.map((e) => e.raw).sort());
    assert.deepEqual(rows.filter((row) => row.get('ok') === true).length, 20);
    await engine.flush();
    assert.equal((await collect(engine, all())).length, 40);
    await engine.close();
  });

  it('sets a write-buffer record that does not validate aside in the quarantine at replay, and works on', async () => {
    const placement = { bucketSpanMicros: HOUR, partitions: 1 };
    const base = Date.UTC(2026, 0, 1) * 1000;
    let engine = await StorageEngine.open(options(dir));
    await engine.appendEvents(Array.from({ length: 5 }, (_, i) => event(i, base + i)));
    // Written past the checks, as an older build or a flipped bit would have left it.
    const bad = overClaimingRecord(2_000_000, placement);
    const jsonRecord = (text: string): Buffer => Buffer.concat([Buffer.of(0), Buffer.from(text)]);
    await engine.rocks.write([
      { type: 'put', key: walKey(7), value: bad },
      { type: 'put', key: walKey(8), value: jsonRecord(JSON.stringify([{ time: base, raw: 'x', index: '../../etc', fields: {} }])) },
      { type: 'put', key: walKey(9), value: jsonRecord('[{"time": ') },
    ]);
    await crash(engine);

    engine = await StorageEngine.open(options(dir));
    assert.equal(engine.replayed.records, 1);
    assert.equal(engine.replayed.events, 5);
    assert.deepEqual(
      engine.replayed.quarantined.map((record) => record.seq),
      [7, 8, 9],
    );
    const [overClaiming, badIndex, notJson] = engine.replayed.quarantined;
    assert.match(overClaiming.key, /^q:\d+\/7$/);
    assert.match(overClaiming.reason, /claims 2000000 rows but holds 1 times/);
    assert.match(badIndex.reason, /index '\.\.\/\.\.\/etc', which is not an index name/);
    assert.match(notJson.reason, /JSON/);
    const held = [];
    for await (const entry of engine.rocks.scan(QUARANTINE_PREFIX)) held.push(entry.value);
    assert.equal(held.length, 3);
    assert.deepEqual(held[0], bad);
    const wal = [];
    for await (const entry of engine.rocks.scan(WAL_PREFIX)) wal.push(entry.key);
    assert.deepEqual(wal, [walKey(1)]);
    assert.equal(engine.buffer.bufferedEvents, 5);

    await engine.appendEvents(Array.from({ length: 3 }, (_, i) => event(10 + i, base + 100 + i)));
    await engine.flush();
    assert.equal(engine.buffer.bufferedEvents, 0);
    assert.equal((await collect(engine, all())).length, 8);
    await engine.close();
    // Set aside once: the next start replays nothing and finds nothing to set aside.
    engine = await StorageEngine.open(options(dir));
    assert.deepEqual(engine.replayed, { records: 0, events: 0, quarantined: [] });
    await engine.close();
  });

  it('makes appended events readable at once and after a flush, with the same values', async () => {
    const engine = await StorageEngine.open(options(dir));
    const base = Date.UTC(2026, 0, 1) * 1000;
    await engine.appendEvents(Array.from({ length: 50 }, (_, i) => event(i, base + i * 1000)));
    const buffered = await collect(engine, all());
    assert.equal(buffered.length, 50);
    assert.equal(engine.stats().bufferedEvents, 50);
    await engine.flush();
    assert.equal(engine.stats().bufferedEvents, 0);
    assert.equal(engine.stats().segmentCount, 1);
    const flushed = await collect(engine, all());
    assert.equal(flushed.length, 50);
    const byRaw = (rows: Map<string, unknown>[]) =>
      rows.map((row) => Object.fromEntries(row)).sort((a, b) => String(a._raw).localeCompare(String(b._raw)));
    assert.deepEqual(byRaw(flushed), byRaw(buffered));
    const first = byRaw(flushed)[0];
    assert.equal(first.index, 'main');
    assert.equal(typeof first.status, 'number');
    assert.equal(typeof first.ok, 'boolean');
    await engine.close();
  });

  it('a token-pruned scan planned while a flush publishes its segments sees every row once', async () => {
    // The plan reads the segments' filters (an await) between listing segments and buffered
    // chunks: a flush that lands in between must not hide its rows (nor show them twice). Many
    // segments make the filter reads slow and a flush of a few events fast, and the scan starts
    // at a different point of the flush each round.
    const engine = await StorageEngine.open(options(dir));
    const base = Date.UTC(2026, 0, 1) * 1000;
    await engine.appendEvents(Array.from({ length: 400 }, (_, i) => event(i, base + i * (HOUR / 10))));
    await engine.flush();
    let total = 400;
    for (let round = 0; round < 40; round++) {
      await engine.appendEvents(Array.from({ length: 5 }, (_, i) => event(total + i, base + (total + i) * 1000)));
      total += 5;
      const flushing = engine.flush();
      for (let tick = 0; tick < round % 8; tick++) await new Promise((resolve) => setImmediate(resolve));
      const counted = await engine.countRows({ ...all(), tokens: ['event'] });
      await flushing;
      assert.equal(counted, total, `round ${round}: rows seen while the flush published`);
    }
    await engine.close();
  });

  it('replays the write buffer after a restart without a flush, and never duplicates after one', async () => {
    const base = Date.UTC(2026, 0, 1) * 1000;
    let engine = await StorageEngine.open(options(dir));
    await engine.appendEvents(Array.from({ length: 30 }, (_, i) => event(i, base + i)));
    // Simulate a crash: close RocksDB without flushing our buffer.
    await engine.rocks.close();
    await engine.closePools();
    engine = await StorageEngine.open(options(dir));
    assert.equal(engine.replayed.events, 30);
    assert.equal(await engine.countRows(all()), 30);
    await engine.flush();
    await engine.close();
    engine = await StorageEngine.open(options(dir));
    assert.equal(engine.replayed.events, 0);
    assert.equal(await engine.countRows(all()), 30);
    await engine.close();
  });

  it('lists the partition keys it holds in a range, and scans only the keys asked for, buffered or flushed', async () => {
    const engine = await StorageEngine.open(options(dir, { placement: { bucketSpanMicros: HOUR, partitions: 4 } }));
    const base = Date.UTC(2026, 0, 1) * 1000;
    const events = [
      ...Array.from({ length: 30 }, (_, i) => event(i, base + i * 1000)),
      ...Array.from({ length: 30 }, (_, i) => event(i, base + HOUR + i * 1000, 'web')),
    ];
    await engine.appendEvents(events);
    const expectedKeys = new Set(events.map((e) => keyString(keyOf(e, { bucketSpanMicros: HOUR, partitions: 4 }))));
    assert.ok(expectedKeys.size >= 4, `several keys: ${[...expectedKeys]}`);
    for (const phase of ['buffered', 'flushed']) {
      if (phase === 'flushed') await engine.flush();
      assert.deepEqual([...engine.localKeys(all())].sort(), [...expectedKeys].sort(), phase);
      assert.deepEqual(
        [...engine.localKeys({ ...all(), index: indexMatcher(['web']) })].sort(),
        [...expectedKeys].filter((key) => key.startsWith('web|')).sort(),
        phase,
      );
      assert.deepEqual(
        [...engine.localKeys(all(base + HOUR))].every((key) => key.startsWith('web|')),
        true,
        phase,
      );
      const [chosen] = [...expectedKeys].sort();
      const rows = await collect(engine, { ...all(), keys: new Set([chosen]) });
      const wanted = events.filter((e) => keyString(keyOf(e, { bucketSpanMicros: HOUR, partitions: 4 })) === chosen);
      assert.ok(wanted.length > 0);
      assert.deepEqual(rows.map((row) => row.get('_raw')).sort(), wanted.map((e) => e.raw).sort(), `${phase}: only the rows of ${chosen}`);
      assert.equal((await collect(engine, { ...all(), keys: new Set() })).length, 0, phase);
    }
    await engine.close();
  });

  it('splits rows by index and hour bucket and prunes by index and time', async () => {
    const engine = await StorageEngine.open(options(dir));
    const base = Date.UTC(2026, 0, 1) * 1000;
    await engine.appendEvents([
      ...Array.from({ length: 10 }, (_, i) => event(i, base + i, 'web')),
      ...Array.from({ length: 10 }, (_, i) => event(i, base + HOUR + i, 'web')),
      ...Array.from({ length: 10 }, (_, i) => event(i, base + i, 'app')),
    ]);
    await engine.flush();
    assert.equal(engine.stats().segmentCount, 3);
    const request: ScanRequest = { index: indexMatcher(['we*']), fromMicros: base + HOUR, toMicros: base + 2 * HOUR, columns: ['_time'] };
    const plan = await engine.planScan(request);
    assert.equal(plan.stats.segmentsSkippedIndex, 1);
    assert.equal(plan.stats.segmentsSkippedTime, 1);
    assert.equal(plan.segments.length, 1);
    let rows = 0;
    for await (const batch of engine.scanBatches(plan, request)) rows += batch.rowCount;
    assert.equal(rows, 10);
    await engine.close();
  });

  it('prunes by column stats and by the bloom filter', async () => {
    const engine = await StorageEngine.open(options(dir));
    const base = Date.UTC(2026, 0, 1) * 1000;
    await engine.appendEvents(Array.from({ length: 20 }, (_, i) => event(i, base + i)));
    await engine.flush();
    const stats = await engine.planScan({ ...all(), predicates: [{ column: 'status', min: 500 }] });
    assert.equal(stats.stats.segmentsSkippedStats, 1);
    const dict = await engine.planScan({ ...all(), predicates: [{ column: 'host', oneOf: ['h9'] }] });
    assert.equal(dict.stats.segmentsSkippedStats, 1);
    const keep = await engine.planScan({ ...all(), predicates: [{ column: 'host', oneOf: ['h2'] }] });
    assert.equal(keep.segments.length, 1);
    const bloomMiss = await engine.planScan({ ...all(), tokens: ['nonexistenttoken'] });
    assert.equal(bloomMiss.stats.segmentsSkippedBloom, 1);
    const bloomHit = await engine.planScan({ ...all(), tokens: ['event', '17'] });
    assert.equal(bloomHit.segments.length, 1);
    for (const plan of [stats, dict, keep, bloomMiss, bloomHit]) {
      for await (const batch of engine.scanBatches(plan, all())) void batch;
    }
    await engine.close();
  });

  it('compaction merges small segments of a key, keeps every row and records a manifest', async () => {
    const engine = await StorageEngine.open(options(dir, { segmentMaxEvents: 100 }));
    const base = Date.UTC(2026, 0, 1) * 1000;
    for (let round = 0; round < 6; round++) {
      await engine.appendEvents(Array.from({ length: 15 }, (_, i) => event(round * 15 + i, base + round * 1000 + i)));
      await engine.flush();
    }
    assert.equal(engine.stats().segmentCount, 6);
    const later = Date.UTC(2026, 0, 1, 5);
    assert.deepEqual(engine.compactionBacklog(later), { running: false, pending: 1 });
    const before = (await collect(engine, all())).map((row) => row.get('_raw')).sort();
    const pass = engine.maintain(later);
    // The pass is queued behind nothing: it is merging before this turn ends.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(engine.compactionBacklog(later).running, true);
    const { manifests } = await pass;
    assert.deepEqual(engine.compactionBacklog(later), { running: false, pending: 0 });
    assert.equal(manifests.length, 1);
    assert.equal(manifests[0].inputs.length, 6);
    assert.equal(manifests[0].rows, 90);
    assert.equal(engine.stats().segmentCount, 1);
    const after = (await collect(engine, all())).map((row) => row.get('_raw')).sort();
    assert.deepEqual(after, before);
    const history = await engine.compactionHistory(0);
    assert.equal(history.length, 1);
    assert.deepEqual(history[0].inputs.map((input) => input.id).sort(), manifests[0].inputs.map((input) => input.id).sort());
    const sources = engine.sources({ index: null, fromMicros: -Infinity, toMicros: Infinity, source: null });
    assert.equal(sources.get('even')?.eventCount, 45);
    assert.equal(sources.get('odd')?.eventCount, 45);
    await engine.close();
  });

  it('a merge of flushes that follow one another in time keeps their blocks, and pruned scans find every row after it', async () => {
    const engine = await StorageEngine.open(options(dir, { segmentMaxEvents: 100_000 }));
    const base = Date.UTC(2026, 0, 1) * 1000;
    // Two flushes of 13,000 rows each (one block each, 79% of a block), the second one later in time.
    const ids = (i: number): LogEvent => ({
      ...event(i, base + i * 10),
      raw: `event ${i} user=u${(i * 7919) % 9973} took ${i % 977}ms id=r${i}x`,
    });
    for (const first of [0, 13_000]) {
      await engine.appendEvents(Array.from({ length: 13_000 }, (_, i) => ids(first + i)));
      await engine.flush();
    }
    assert.equal(engine.stats().segmentCount, 2);
    const { manifests } = await engine.maintain(Date.UTC(2026, 0, 1, 5));
    assert.equal(manifests.length, 1);
    assert.equal(manifests[0].inputs.length, 2);
    assert.equal(manifests[0].blocks_kept, true);
    assert.equal(engine.stats().segmentCount, 1);
    const rows = await collect(engine, all());
    assert.equal(rows.length, 26_000);
    // Token-pruned scans (block filters kept, frame filters rebuilt) find rows of both inputs.
    for (const i of [5, 12_999, 13_000, 25_999]) {
      const found = await collect(engine, { ...all(), tokens: [`r${i}x`], rawTokens: [`r${i}x`] });
      assert.ok(
        found.some((row) => row.get('_raw') === ids(i).raw),
        `row ${i} after the merge`,
      );
    }
    await engine.close();
  });

  it('summarizes the sources of buffered events as it does after their flush, call after call', async () => {
    const engine = await StorageEngine.open(options(dir));
    const base = Date.UTC(2026, 0, 1) * 1000;
    await engine.appendEvents(Array.from({ length: 30 }, (_, i) => event(i, base + i)));
    await engine.appendEvents([{ time: base + 99, raw: 'no source here', index: 'main', fields: { extra: 1 } }]);
    const filter = { index: null, fromMicros: -Infinity, toMicros: Infinity, source: null };
    const shape = (
      sources: Map<string, { eventCount: number; rawBytes: number; firstEvent: number; lastEvent: number; fields: Set<string> }>,
    ) =>
      [...sources.values()]
        .map((s) => ({
          name: (s as unknown as { name: string }).name,
          count: s.eventCount,
          raw: s.rawBytes,
          first: s.firstEvent,
          last: s.lastEvent,
          fields: [...s.fields].sort(),
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    const buffered = shape(engine.sources(filter));
    assert.deepEqual(shape(engine.sources(filter)), buffered, 'a second call (cached per chunk) answers the same');
    assert.deepEqual(
      buffered.map((s) => [s.name, s.count, s.first - base, s.last - base]),
      [
        ['', 1, 99, 99],
        ['even', 15, 0, 28],
        ['odd', 15, 1, 29],
      ],
    );
    assert.deepEqual(buffered.find((s) => s.name === 'even')?.fields, ['host', 'ok', 'source', 'status']);
    assert.deepEqual(buffered.find((s) => s.name === '')?.fields, ['extra']);
    await engine.flush();
    const flushed = shape(engine.sources(filter));
    assert.deepEqual(
      flushed.map((s) => [s.name, s.count, s.raw, s.first, s.last]),
      buffered.map((s) => [s.name, s.count, s.raw, s.first, s.last]),
    );
    await engine.close();
  });

  it('writes level-0 segments at the flush zstd level and compacted ones at the compaction level', async () => {
    const engine = await StorageEngine.open(options(dir, { segmentMaxEvents: 100, compressionLevel: 3 }));
    const levels: { encode: number[]; merge: number[] } = { encode: [], merge: [] };
    const pool = engine.pool;
    const encode = pool.encode.bind(pool);
    const merge = engine.compactionPool.merge.bind(engine.compactionPool);
    pool.encode = (pieces, opts) => (levels.encode.push(opts.compressionLevel), encode(pieces, opts));
    engine.compactionPool.merge = (inputs, opts) => (levels.merge.push(opts.compressionLevel), merge(inputs, opts));
    pool.merge = () => Promise.reject(new Error('merges run in the compaction pool'));
    const base = Date.UTC(2026, 0, 1) * 1000;
    for (let round = 0; round < 3; round++) {
      await engine.appendEvents(Array.from({ length: 20 }, (_, i) => event(round * 20 + i, base + round * 1000 + i)));
      await engine.flush();
    }
    await engine.maintain(Date.UTC(2026, 0, 1, 5));
    assert.deepEqual(levels.encode, [1, 1, 1]);
    assert.deepEqual(levels.merge, [9]);
    assert.equal(flushZstdLevel(3), 1);
    assert.equal(compactionZstdLevel(3), 9);
    assert.equal(flushZstdLevel(1), 1);
    assert.equal(flushZstdLevel(19), 17);
    assert.equal(compactionZstdLevel(15), 19);
    await engine.close();
  });

  it('recompresses a lone level-0 segment of a closed bucket once, keeping every row', async () => {
    const engine = await StorageEngine.open(options(dir, { segmentMaxEvents: 100 }));
    const base = Date.UTC(2026, 0, 1) * 1000;
    await engine.appendEvents(Array.from({ length: 100 }, (_, i) => event(i, base + i * 7)));
    await engine.appendEvents(Array.from({ length: 30 }, (_, i) => event(100 + i, base + HOUR + i)));
    await engine.flush();
    const before = (await collect(engine, all())).map((row) => JSON.stringify([...row]));
    // 01:30: the first bucket is closed (one full segment), the second still open (one small one).
    const first = await engine.maintain(Date.UTC(2026, 0, 1, 1, 30));
    assert.equal(first.manifests.length, 1);
    assert.equal(first.manifests[0].inputs.length, 1);
    assert.equal(first.manifests[0].inputs[0].level, 0);
    assert.equal(first.manifests[0].rows, 100);
    assert.equal(first.manifests[0].level, 1);
    assert.equal(first.manifests[0].blocks_kept, true, 'its column blocks are kept, only _raw is written anew');
    const again = await engine.maintain(Date.UTC(2026, 0, 1, 1, 30));
    assert.equal(again.manifests.length, 0);
    // Once the second bucket closes, its lone segment is recompressed too, then nothing more.
    assert.equal((await engine.maintain(Date.UTC(2026, 0, 1, 5))).manifests.length, 1);
    assert.equal((await engine.maintain(Date.UTC(2026, 0, 1, 5))).manifests.length, 0);
    const after = (await collect(engine, all())).map((row) => JSON.stringify([...row]));
    assert.deepEqual(after, before);
    await engine.close();
  });

  it('picks merges and lone level-0 segments to recompress only in closed buckets', () => {
    const header = (id: string, level: number, rowCount: number) => ({ id, level, rowCount, bucket: 0, minTime: 0 }) as SegmentHeader;
    const opts = { segmentMaxEvents: 100, compressionLevel: 3, bucketSpanMicros: HOUR, closeGraceMicros: 0, nowMicros: 2 * HOUR };
    const groups = new Map([['k', [header('a', 0, 100), header('b', 1, 50), header('c', 0, 10)]]]);
    // Closed bucket: b and c merge; a (full, level 0) is recompressed alone.
    assert.deepEqual(
      pickCompactions(groups, opts).map((g) => g.map((h) => h.id)),
      [['b', 'c'], ['a']],
    );
    // Open bucket: nothing alone, and fewer than 4 small segments do not merge.
    assert.deepEqual(pickCompactions(groups, { ...opts, nowMicros: HOUR / 2 }), []);
  });

  it('retention drops only segments entirely older than the retention period', async () => {
    const now = Date.UTC(2026, 5, 10, 12);
    const engine = await StorageEngine.open(options(dir, { retentionMs: 24 * 3600_000 }));
    const old = (now - 3 * 24 * 3600_000) * 1000;
    const recent = (now - 3600_000) * 1000;
    await engine.appendEvents([
      ...Array.from({ length: 5 }, (_, i) => event(i, old + i)),
      ...Array.from({ length: 7 }, (_, i) => event(i, recent + i)),
    ]);
    await engine.flush();
    assert.equal(engine.stats().segmentCount, 2);
    const { retention } = await engine.maintain(now);
    assert.equal(retention.segments, 1);
    assert.equal(retention.rows, 5);
    assert.equal(engine.stats().totalEvents, 7);
    await engine.close();
    const reopened = await StorageEngine.open(options(dir, { retentionMs: 24 * 3600_000 }));
    assert.equal(reopened.stats().segmentCount, 1);
    assert.equal(await reopened.countRows(all()), 7);
    await reopened.close();
  });

  it('keeps a segment readable by a running scan while compaction retires it', async () => {
    const engine = await StorageEngine.open(options(dir, { segmentMaxEvents: 100 }));
    const base = Date.UTC(2026, 0, 1) * 1000;
    for (let round = 0; round < 4; round++) {
      await engine.appendEvents(Array.from({ length: 10 }, (_, i) => event(round * 10 + i, base + round * 100 + i)));
      await engine.flush();
    }
    const request = all();
    const plan = await engine.planScan(request);
    await engine.maintain(Date.UTC(2026, 0, 1, 5));
    assert.equal(engine.stats().segmentCount, 1);
    let rows = 0;
    for await (const batch of engine.scanBatches(plan, request)) rows += batch.rowCount;
    assert.equal(rows, 40);
    await engine.close();
  });

  it('encodes in worker threads the same way as in-process', async () => {
    const engine = await StorageEngine.open(options(dir, { codecWorkers: 2 }));
    const base = Date.UTC(2026, 0, 1) * 1000;
    await engine.appendEvents(Array.from({ length: 500 }, (_, i) => event(i, base + i)));
    await engine.flush();
    assert.equal(await engine.countRows(all()), 500);
    const rows = await collect(engine, { ...all(), columns: ['status'] });
    assert.equal(rows.filter((row) => row.get('status') === 204).length, 100);
    await engine.close();
  });
});

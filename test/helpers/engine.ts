/**
 * A storage engine in this process for unit tests: a temp data dir (or the one given), no codec
 * workers, flush and compaction far apart so that a test flushes when it means to, and retention
 * long enough for fixed dates. Started, ready for appends and scans; or one holding given chunks.
 */
import { decodeChunkRecord, encodeChunkRecord } from '../../storage/buffer/chunk-record';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import { StorageEngine, type EngineOptions } from '../../storage/engine';
import { tempDir } from './server';

export async function openTestEngine(overrides: Partial<EngineOptions> = {}): Promise<StorageEngine> {
  const engine = await StorageEngine.open({
    dataDir: tempDir(),
    placement: { bucketSpanMicros: 3600e6, partitions: 1 },
    flushIntervalMs: 60_000,
    segmentMaxEvents: 1000,
    compressionLevel: 3,
    fsync: false,
    compactionIntervalMs: 3_600_000,
    retentionMs: 3650 * 86_400_000,
    codecWorkers: 0,
    ...overrides,
  });
  engine.start();
  return engine;
}

/** A test engine holding `chunks`, appended as one record the way a shard write stores them, and flushed. */
export async function engineHolding(
  chunks: readonly EventChunk[],
  overrides: Partial<EngineOptions> & Pick<EngineOptions, 'placement'>,
): Promise<StorageEngine> {
  const engine = await openTestEngine(overrides);
  const record = encodeChunkRecord([...chunks], overrides.placement);
  await engine.appendRecord(decodeChunkRecord(record).chunks, record);
  await engine.flush();
  return engine;
}

/**
 * What the in-process codec benches (flush, compact) share: a build's modules loaded by path, so
 * that two builds can alternate in one process, and the server's chunks for generated events.
 */
import path from 'path';
import type { CodecRequest, CodecResult } from '../../storage/threads/codec-worker';
import type { ChunkPiece, EventChunk } from '../../storage/buffer/event-chunk';
import type { Placement } from '../../storage/core/partition';
import { EventGenerator } from './generate';

/** What the benches need of a build. */
export interface CodecBuild {
  name: string;
  scanNativeBatch: (
    body: Buffer,
    ctx: { receivedAtMicros: number; pipeline: boolean; oldestMicros: number; newestMicros: number },
    placement: Placement,
  ) => EventChunk[] | null;
  encodeChunkRecord: (chunks: readonly EventChunk[], placement: Placement) => Buffer;
  decodeChunkRecord: (value: Uint8Array) => { chunks: EventChunk[] };
  groupChunkRows: (chunks: readonly EventChunk[], size: number) => ChunkPiece[][];
  runCodecRequest: (request: CodecRequest) => CodecResult;
}

/** A module of a build by its path, or by the path it had in builds that predate the storage folders. */
function requireModule<T>(dist: string, current: string, older: string): T {
  try {
    return require(path.join(dist, current)) as T;
  } catch {
    return require(path.join(dist, older)) as T;
  }
}

function loadBuild(dist: string, name: string): CodecBuild {
  const scan = require(path.join(dist, 'node/ingest/native-scan.js')) as Pick<CodecBuild, 'scanNativeBatch'>;
  const record = requireModule<Pick<CodecBuild, 'encodeChunkRecord' | 'decodeChunkRecord'>>(
    dist,
    'storage/buffer/chunk-record.js',
    'storage/chunk-record.js',
  );
  const chunk = requireModule<Pick<CodecBuild, 'groupChunkRows'>>(dist, 'storage/buffer/event-chunk.js', 'storage/event-chunk.js');
  const codec = requireModule<Pick<CodecBuild, 'runCodecRequest'>>(dist, 'storage/threads/codec-worker.js', 'storage/codec-worker.js');
  return { name, ...scan, ...record, ...chunk, ...codec };
}

/** This build, and the baseline's when one is given (another build's `dist` folder). */
export function loadBuilds(baseline: string | null): CodecBuild[] {
  const builds = [loadBuild(path.resolve(__dirname, '../..'), 'this build')];
  if (baseline !== null) builds.push(loadBuild(path.resolve(baseline), `baseline ${baseline}`));
  return builds;
}

/** Request bodies of generated events (10,000 a body), spread over `spanMs` ending an hour ago. */
export function generatedBodies(events: number, spanMs: number): Buffer[] {
  const generator = new EventGenerator(42, Date.now() - 7 * 3600_000, spanMs / events);
  const bodies: Buffer[] = [];
  for (let produced = 0; produced < events; produced += 10_000) {
    const batch = Array.from({ length: Math.min(10_000, events - produced) }, () => generator.next());
    bodies.push(Buffer.from(JSON.stringify(batch)));
  }
  return bodies;
}

/**
 * The bodies as the server buffers them (the fast path, then a chunk record and back), grouped as
 * one flush of one partition key: one day's bucket, so they become one segment.
 */
export function flushGroups(build: CodecBuild, bodies: readonly Buffer[]): ChunkPiece[][] {
  const placement: Placement = { bucketSpanMicros: 24 * 3600_000_000, partitions: 1 };
  // Every time accepted (builds that predate the window ignore it).
  const ctx = { receivedAtMicros: Date.now() * 1000, pipeline: true, oldestMicros: 0, newestMicros: Number.MAX_SAFE_INTEGER };
  const chunks: EventChunk[] = [];
  for (const body of bodies) {
    const scanned = build.scanNativeBatch(body, ctx, placement);
    if (scanned === null) throw new Error('the fast path refused a generated body');
    chunks.push(...build.decodeChunkRecord(build.encodeChunkRecord(scanned, placement)).chunks);
  }
  return build.groupChunkRows(chunks, Number.MAX_SAFE_INTEGER);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Runs each build's job once unmeasured (JIT), then `runs` times alternating build by build;
 * returns each build's CPU microseconds per event, one entry a run.
 */
export function alternate(jobs: (() => void)[], runs: number, events: number): number[][] {
  const cpu = jobs.map((): number[] => []);
  jobs.forEach((job) => job());
  for (let run = 0; run < runs; run++) {
    jobs.forEach((job, b) => {
      const before = process.cpuUsage();
      job();
      const used = process.cpuUsage(before);
      cpu[b].push((used.user + used.system) / events);
    });
  }
  return cpu;
}

/**
 * `npm run bench -- flush [--events N] [--runs N] [--baseline DIST]`
 *
 * The flush's CPU alone, in this process: generated events go through the `/ingest` fast path
 * into chunk records as the server makes them (10,000 a body), then each run encodes all of them
 * as one flush does (codec-worker.ts `runCodecRequest`: rows, columns, filters, zstd). Prints the
 * median CPU per event and the segment bytes. With `--baseline` (another build's `dist` folder)
 * the two builds alternate run by run on the same chunks, which is steadier on a noisy machine
 * than comparing two server runs.
 */
import path from 'path';
import type { CodecRequest, CodecResult } from '../../storage/codec-worker';
import type { EventChunk } from '../../storage/event-chunk';
import type { Placement } from '../../storage/partition';
import { EventGenerator } from './generate';

export interface FlushBenchOptions {
  events: number;
  runs: number;
  /** Another build's `dist` folder, run alternately with this one. */
  baseline: string | null;
}

/** What the bench needs of a build (loaded by path, so another build's modules can be used). */
interface Build {
  name: string;
  scanNativeBatch: (body: Buffer, ctx: { receivedAtMicros: number; pipeline: boolean }, placement: Placement) => EventChunk[] | null;
  encodeChunkRecord: (chunks: readonly EventChunk[], placement: Placement) => Buffer;
  decodeChunkRecord: (value: Uint8Array) => { chunks: EventChunk[] };
  groupChunkRows: (chunks: readonly EventChunk[], size: number) => unknown[][];
  runCodecRequest: (request: CodecRequest) => CodecResult;
}

function loadBuild(dist: string, name: string): Build {
  const scan = require(path.join(dist, 'node/ingest/native-scan.js')) as Pick<Build, 'scanNativeBatch'>;
  const record = require(path.join(dist, 'storage/chunk-record.js')) as Pick<Build, 'encodeChunkRecord' | 'decodeChunkRecord'>;
  const chunk = require(path.join(dist, 'storage/event-chunk.js')) as Pick<Build, 'groupChunkRows'>;
  const codec = require(path.join(dist, 'storage/codec-worker.js')) as Pick<Build, 'runCodecRequest'>;
  return { name, ...scan, ...record, ...chunk, ...codec };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export async function runFlushBench(options: FlushBenchOptions): Promise<void> {
  const here = path.resolve(__dirname, '../..');
  const builds = [loadBuild(here, 'this build')];
  if (options.baseline !== null) builds.push(loadBuild(path.resolve(options.baseline), `baseline ${options.baseline}`));
  // One day's bucket: the events become one segment, as a flush of one partition key would.
  const placement: Placement = { bucketSpanMicros: 24 * 3600_000_000, partitions: 1 };
  const generator = new EventGenerator(42, Date.now() - 7 * 3600_000, 3_000_000 / options.events);
  const bodies: Buffer[] = [];
  for (let produced = 0; produced < options.events; produced += 10_000) {
    const events = Array.from({ length: Math.min(10_000, options.events - produced) }, () => generator.next());
    bodies.push(Buffer.from(JSON.stringify(events)));
  }
  const ctx = { receivedAtMicros: Date.now() * 1000, pipeline: true };
  const flushes = builds.map((build) => {
    const chunks: EventChunk[] = [];
    for (const body of bodies) {
      const scanned = build.scanNativeBatch(body, ctx, placement);
      if (scanned === null) throw new Error('the fast path refused a generated body');
      chunks.push(...build.decodeChunkRecord(build.encodeChunkRecord(scanned, placement)).chunks);
    }
    const groups = build.groupChunkRows(chunks, Number.MAX_SAFE_INTEGER);
    return (): number => {
      let bytes = 0;
      for (const pieces of groups) {
        const request = { id: 0, type: 'encode', pieces, options: { compressionLevel: 1, blockRows: 16_384 } } as CodecRequest;
        bytes += build.runCodecRequest(request).stats.bytes;
      }
      return bytes;
    };
  });
  const cpu = builds.map((): number[] => []);
  const bytes = builds.map(() => 0);
  // One unmeasured run each (JIT), then alternating measured runs.
  flushes.forEach((flush) => flush());
  for (let run = 0; run < options.runs; run++) {
    flushes.forEach((flush, b) => {
      const before = process.cpuUsage();
      bytes[b] = flush();
      const used = process.cpuUsage(before);
      cpu[b].push((used.user + used.system) / options.events);
    });
  }
  console.log(`\nflush benchmark: ${options.events} events in one segment, ${options.runs} runs (zstd level 1, as the flusher writes)`);
  console.log(`| build | codec CPU per event, median (min) | segment bytes |`);
  console.log(`|---|---:|---:|`);
  builds.forEach((build, b) => {
    console.log(`| ${build.name} | ${median(cpu[b]).toFixed(2)} µs (${Math.min(...cpu[b]).toFixed(2)}) | ${bytes[b]} |`);
  });
}

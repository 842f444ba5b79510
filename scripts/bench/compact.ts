/**
 * `npm run bench -- compact [--events N] [--runs N] [--baseline DIST]`
 *
 * Compaction's CPU alone, in this process: generated events are flushed once into one level-0
 * segment (as `npm run bench -- flush` does), then each run rewrites that segment as compaction
 * does when its bucket closes (codec-worker.ts `mergeSegments`: decode every column, field
 * references in `_raw`, filters, zstd at the compaction level). Prints the median CPU per event and
 * the bytes before and after. With `--baseline` (another build's `dist` folder) the two builds
 * alternate run by run on the same segment.
 */
import { compactionZstdLevel, flushZstdLevel } from '../../storage/compactor';
import type { CodecRequest, MergeInput } from '../../storage/codec-worker';
import type { SegmentHeader } from '../../storage/segment/header';
import { alternate, flushGroups, generatedBodies, loadBuilds, median } from './codec-builds';

export interface CompactBenchOptions {
  events: number;
  runs: number;
  /** Another build's `dist` folder, run alternately with this one. */
  baseline: string | null;
}

/** The default `storage.compression_level`. */
const COMPRESSION_LEVEL = 3;
const BLOCK_ROWS = 16_384;

export async function runCompactBench(options: CompactBenchOptions): Promise<void> {
  const builds = loadBuilds(options.baseline);
  const bodies = generatedBodies(options.events, 3_000_000);
  const flushedBytes = builds.map(() => 0);
  const compactedBytes = builds.map(() => 0);
  const compactions = builds.map((build, b) => {
    const inputs: MergeInput[] = flushGroups(build, bodies).map((pieces, i) => {
      const request = { id: 0, type: 'encode', pieces, options: { compressionLevel: flushZstdLevel(COMPRESSION_LEVEL), blockRows: BLOCK_ROWS } } as CodecRequest;
      const flushed = build.runCodecRequest(request);
      flushedBytes[b] += flushed.stats.bytes;
      const header: SegmentHeader = {
        ...flushed.stats,
        version: 3,
        id: `bench${i}`,
        index: 'main',
        bucket: 0,
        partition: 0,
        level: 0,
        createdAt: 0,
        sources: flushed.sources,
      };
      return { header, blocks: flushed.blockData, blooms: flushed.blooms };
    });
    const options = { compressionLevel: compactionZstdLevel(COMPRESSION_LEVEL), blockRows: BLOCK_ROWS, rawRefs: true };
    return (): void => {
      compactedBytes[b] = build.runCodecRequest({ id: 0, type: 'merge', inputs, options } as CodecRequest).stats.bytes;
    };
  });
  const cpu = alternate(compactions, options.runs, options.events);
  console.log(`\ncompaction benchmark: ${options.events} events flushed into one segment and rewritten, ${options.runs} runs`);
  console.log(`| build | codec CPU per event, median (min) | bytes flushed | bytes compacted |`);
  console.log(`|---|---:|---:|---:|`);
  builds.forEach((build, b) => {
    console.log(`| ${build.name} | ${median(cpu[b]).toFixed(2)} µs (${Math.min(...cpu[b]).toFixed(2)}) | ${flushedBytes[b]} | ${compactedBytes[b]} |`);
  });
}

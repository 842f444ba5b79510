/**
 * `npm run bench -- compact [--events N] [--inputs N] [--runs N] [--baseline DIST]`
 *
 * Compaction's CPU alone, in this process: generated events are flushed into `--inputs` level-0
 * segments (1 by default; consecutive in time, as successive flushes of a bucket are), then each
 * run compacts them into one as compaction does when their bucket closes (codec-worker.ts
 * `mergeSegments`: field references in `_raw`, filters, zstd at the compaction level). Prints the
 * median CPU per event and the bytes before and after. With `--baseline` (another build's `dist`
 * folder) the two builds alternate run by run on the same segments.
 */
import { compactionZstdLevel, flushZstdLevel } from '../../storage/lifecycle/compactor';
import type { CodecRequest, MergeInput } from '../../storage/threads/codec-worker';
import type { SegmentHeader } from '../../storage/segment/header';
import { alternate, flushGroups, generatedBodies, loadBuilds, median } from './codec-builds';

export interface CompactBenchOptions {
  events: number;
  /** Flushed segments to compact into one. */
  inputs: number;
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
    const perInput = Math.ceil(bodies.length / options.inputs);
    const parts = Array.from({ length: options.inputs }, (_, i) => bodies.slice(i * perInput, (i + 1) * perInput)).filter(
      (part) => part.length > 0,
    );
    const inputs: MergeInput[] = parts
      .flatMap((part) => flushGroups(build, part))
      .map((pieces, i) => {
        const request = {
          id: 0,
          type: 'encode',
          pieces,
          options: { compressionLevel: flushZstdLevel(COMPRESSION_LEVEL), blockRows: BLOCK_ROWS },
        } as CodecRequest;
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
    const merge = { compressionLevel: compactionZstdLevel(COMPRESSION_LEVEL), blockRows: BLOCK_ROWS, rawRefs: true };
    return (): void => {
      compactedBytes[b] = build.runCodecRequest({ id: 0, type: 'merge', inputs, options: merge } as CodecRequest).stats.bytes;
    };
  });
  const cpu = alternate(compactions, options.runs, options.events);
  console.log(
    `\ncompaction benchmark: ${options.events} events flushed into ${options.inputs} segment(s) and compacted into one, ${options.runs} runs`,
  );
  console.log(`| build | codec CPU per event, median (min) | bytes flushed | bytes compacted |`);
  console.log(`|---|---:|---:|---:|`);
  builds.forEach((build, b) => {
    console.log(
      `| ${build.name} | ${median(cpu[b]).toFixed(2)} µs (${Math.min(...cpu[b]).toFixed(2)}) | ${flushedBytes[b]} | ${compactedBytes[b]} |`,
    );
  });
}

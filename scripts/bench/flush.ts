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
import type { CodecRequest } from '../../storage/threads/codec-worker';
import { alternate, flushGroups, generatedBodies, loadBuilds, median } from './codec-builds';

export interface FlushBenchOptions {
  events: number;
  runs: number;
  /** Another build's `dist` folder, run alternately with this one. */
  baseline: string | null;
}

export async function runFlushBench(options: FlushBenchOptions): Promise<void> {
  const builds = loadBuilds(options.baseline);
  const bodies = generatedBodies(options.events, 3_000_000);
  const bytes = builds.map(() => 0);
  const flushes = builds.map((build, b) => {
    const groups = flushGroups(build, bodies);
    return (): void => {
      bytes[b] = 0;
      for (const pieces of groups) {
        const request = { id: 0, type: 'encode', pieces, options: { compressionLevel: 1, blockRows: 16_384 } } as CodecRequest;
        bytes[b] += build.runCodecRequest(request).stats.bytes;
      }
    };
  });
  const cpu = alternate(flushes, options.runs, options.events);
  console.log(`\nflush benchmark: ${options.events} events in one segment, ${options.runs} runs (zstd level 1, as the flusher writes)`);
  console.log(`| build | codec CPU per event, median (min) | segment bytes |`);
  console.log(`|---|---:|---:|`);
  builds.forEach((build, b) => {
    console.log(`| ${build.name} | ${median(cpu[b]).toFixed(2)} µs (${Math.min(...cpu[b]).toFixed(2)}) | ${bytes[b]} |`);
  });
}

/**
 * `npm run bench -- scan [--events N] [--runs N] [--partitions N] [--baseline DIST]`
 *
 * The ingest parse's CPU alone, in this process, with one partition (a single node) and with
 * `--partitions` (16 by default, the cluster's): generated bodies of 10,000 events go through the
 * `/ingest` fast path (native-scan.ts) and through the general path (JSON.parse, native.ts,
 * chunkEvents) into chunk records, as a parse worker makes them. Two sets of bodies: the bench
 * generator's mix of hosts and sources, and the same events all from one host and source (which
 * the hot-source spill spreads over partitions). Prints the median CPU per event and the chunks a
 * body makes. With `--baseline` (another build's `dist` folder) the builds alternate run by run,
 * in turn first.
 */
import path from 'path';
import type { IngestContext } from '../../node/ingest/common';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import type { LogEvent } from '../../storage/core/event';
import type { Placement } from '../../storage/core/partition';
import { median } from './codec-builds';
import { EventGenerator } from './generate';

export interface ScanBenchOptions {
  events: number;
  runs: number;
  partitions: number;
  /** Another build's `dist` folder, run alternately with this one. */
  baseline: string | null;
}

/** What the bench needs of a build. */
interface ParseBuild {
  name: string;
  scanNativeBatch: (body: Buffer, ctx: IngestContext, placement: Placement) => EventChunk[] | null;
  parseNativeBatch: (body: string, ctx: IngestContext) => { events: LogEvent[] };
  bodyText: (bytes: Buffer) => string;
  chunkEvents: (events: readonly LogEvent[], placement: Placement) => EventChunk[];
  encodeChunkRecord: (chunks: readonly EventChunk[], placement: Placement) => Buffer;
}

function loadBuild(dist: string, name: string): ParseBuild {
  const load = <T>(file: string): T => require(path.join(dist, file)) as T;
  return {
    name,
    ...load<Pick<ParseBuild, 'scanNativeBatch'>>('node/ingest/native-scan.js'),
    ...load<Pick<ParseBuild, 'parseNativeBatch'>>('node/ingest/native.js'),
    ...load<Pick<ParseBuild, 'bodyText'>>('node/ingest/format-dispatch.js'),
    ...load<Pick<ParseBuild, 'chunkEvents'>>('storage/buffer/event-chunk.js'),
    ...load<Pick<ParseBuild, 'encodeChunkRecord'>>('storage/buffer/chunk-record.js'),
  };
}

const HOUR = 3_600_000_000;

/** Bodies of 10,000 generated events within one hour; with `oneHost`, every event from one host and source. */
function bodies(events: number, oneHost: boolean): Buffer[] {
  const generator = new EventGenerator(42, Date.UTC(2024, 5, 15, 12), 3_000_000 / events);
  const out: Buffer[] = [];
  for (let produced = 0; produced < events; produced += 10_000) {
    const batch = Array.from({ length: Math.min(10_000, events - produced) }, () => {
      const event = generator.next();
      return oneHost ? { ...event, host: 'web-1', source: 'nginx' } : event;
    });
    out.push(Buffer.from(JSON.stringify(batch)));
  }
  return out;
}

/**
 * Runs each job once unmeasured (JIT), then `runs` times, the order of the builds reversed every
 * other run (the garbage one run leaves is collected in the next); each job's CPU µs per event.
 */
function alternateBothWays(jobs: (() => void)[], runs: number, events: number): number[][] {
  const cpu = jobs.map((): number[] => []);
  jobs.forEach((job) => job());
  for (let run = 0; run < runs; run++) {
    const order = jobs.map((_, b) => b);
    if (run % 2 === 1) order.reverse();
    for (const b of order) {
      const before = process.cpuUsage();
      jobs[b]();
      const used = process.cpuUsage(before);
      cpu[b].push((used.user + used.system) / events);
    }
  }
  return cpu;
}

export async function runScanBench(options: ScanBenchOptions): Promise<void> {
  const builds = [loadBuild(path.resolve(__dirname, '../..'), 'this build')];
  if (options.baseline !== null) builds.push(loadBuild(path.resolve(options.baseline), `baseline ${options.baseline}`));
  const ctx: IngestContext = {
    receivedAtMicros: Date.UTC(2024, 5, 15, 13) * 1000,
    pipeline: true,
    oldestMicros: 0,
    newestMicros: Number.MAX_SAFE_INTEGER,
  };
  const rows: string[] = [];
  for (const oneHost of [false, true]) {
    const set = bodies(options.events, oneHost);
    for (const partitions of [1, options.partitions]) {
      const placement: Placement = { bucketSpanMicros: HOUR, partitions };
      for (const fast of [true, false]) {
        const chunks = builds.map(() => 0);
        const jobs = builds.map((build, b) => (): void => {
          chunks[b] = 0;
          for (const body of set) {
            let scanned: EventChunk[] | null;
            if (fast) {
              scanned = build.scanNativeBatch(body, ctx, placement);
              if (scanned === null) throw new Error('the fast path refused a generated body');
            } else {
              scanned = build.chunkEvents(build.parseNativeBatch(build.bodyText(body), ctx).events, placement);
            }
            build.encodeChunkRecord(scanned, placement);
            chunks[b] += scanned.length;
          }
        });
        const cpu = alternateBothWays(jobs, options.runs, options.events);
        builds.forEach((build, b) => {
          const bodiesLabel = oneHost ? 'one host' : 'mixed';
          rows.push(
            `| ${build.name} | ${bodiesLabel} | ${partitions} | ${fast ? 'fast' : 'general'} | ${median(cpu[b]).toFixed(3)} µs (${Math.min(...cpu[b]).toFixed(3)}) | ${(chunks[b] / set.length).toFixed(1)} |`,
          );
        });
      }
    }
  }
  console.log(
    `\nparse benchmark: ${options.events} events, bodies of 10,000, ${options.runs} runs (CPU of parse and chunk record per event)`,
  );
  console.log(`| build | bodies | partitions | path | CPU per event, median (min) | chunks a body |`);
  console.log(`|---|---|---:|---|---:|---:|`);
  for (const row of rows) console.log(row);
}

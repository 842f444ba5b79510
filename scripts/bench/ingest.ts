/**
 * `npm run bench -- ingest [--events N] [--warmup N] [--batch N] [--concurrency N] [--fsync]`
 *
 * Posts generated events to a real server process (`/api/v1/ingest`, batches of 10,000, two
 * requests in flight) and prints, in the same run: events/s and MB/s, the JSON.parse-only
 * ceiling on the same bodies, their ratio, and data-dir bytes after flush divided by raw bytes.
 * Also the rate until every event is in a segment, and the CPU that took: the flush runs behind
 * the acknowledgements, so a burst of 1M events does not pay for it while it is being posted.
 * Then the CPU once compaction has rewritten everything, which a load that lasts pays as well.
 * With `--warmup N`, N older events are posted, flushed and compacted first, and only what follows
 * is measured: a server that has been running (code compiled, heaps grown), as a lasting load
 * meets it. The data dir's size is not printed then (it holds the warm-up's data too).
 */
import fs from 'fs';
import os from 'os';
import { directoryBytes } from '../../storage/core/rocks';
import { patchConfig } from '../../test/helpers/api';
import { TestServer, request } from '../../test/helpers/server';
import { EventGenerator } from './generate';
import { processCpuSeconds } from './process-cpu';

export interface IngestBenchOptions {
  events: number;
  /** Events posted (older ones), flushed and compacted before the measured run: a warm server. */
  warmup: number;
  batch: number;
  concurrency: number;
  fsync: boolean;
}

/** CPU seconds of each thread of a process (Linux), by "tid name". */
function threadCpu(pid: number | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    out.set(`${tid} ${name}`, (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return out;
}

/** The CPU each thread used since `before` (busiest first): which thread is the bottleneck of a phase. */
function printThreadCpu(phase: string, now: Map<string, number>, before: Map<string, number>): void {
  const rows = [...now].map(([name, seconds]): [string, number] => [name, seconds - (before.get(name) ?? 0)]);
  rows.sort((a, b) => b[1] - a[1]);
  console.log(`threads, ${phase}:`);
  for (const [name, seconds] of rows.slice(0, 12)) console.log(`  thread ${name.padEnd(28)} ${seconds.toFixed(2)} s`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Request bodies of `count` events from `generator`, `batch` a body; and their log lines' bytes. */
function generateBodies(generator: EventGenerator, count: number, batch: number): { bodies: Buffer[]; lineBytes: number } {
  const bodies: Buffer[] = [];
  let lineBytes = 0;
  for (let produced = 0; produced < count; produced += batch) {
    const events = [];
    for (let i = 0; i < Math.min(batch, count - produced); i++) {
      const event = generator.next();
      lineBytes += Buffer.byteLength(event.event);
      events.push(event);
    }
    bodies.push(Buffer.from(JSON.stringify(events)));
  }
  return { bodies, lineBytes };
}

/** Posts every body, `concurrency` at a time, retrying a 503 after a pause; each answer's latency goes to `latencies`. */
async function postAll(server: TestServer, bodies: readonly Buffer[], concurrency: number, latencies: number[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const sent = performance.now();
      const response = await request(`${server.api}/ingest`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      if (response.status === 503) {
        next--; // backpressure: retry the same batch
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${response.text}`);
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function waitFlushed(server: TestServer): Promise<void> {
  for (;;) {
    const stats = await request(`${server.api}/stats`);
    if (stats.body.data.buffered_events === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs compaction every second until no merge runs and a pass would pick none (a recompression leaves the segment count as it was). */
async function waitCompacted(server: TestServer): Promise<void> {
  await patchConfig(server, { storage: { compaction_interval: '1s' } });
  const giveUpAt = performance.now() + 15 * 60_000;
  for (;;) {
    if (performance.now() > giveUpAt) throw new Error('compaction did not finish within 15 minutes');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const storage = (await request(`${server.api}/metrics`)).body.data.storage;
    if (!storage.compaction_running && storage.compaction_pending === 0) return;
  }
}

export async function runIngestBench(options: IngestBenchOptions): Promise<void> {
  // Six hours of events that end an hour ago: every time bucket is closed when the data is weighed,
  // so compaction has rewritten all of it, as it does with everything older than the current hour.
  const generator = new EventGenerator(42, Date.now() - 7 * 3600_000, (6 * 3600_000) / options.events);
  const { bodies, lineBytes } = generateBodies(generator, options.events, options.batch);
  const bodyBytes = bodies.reduce((sum, body) => sum + body.length, 0);

  // The ceiling: JSON.parse alone over the same bodies, one core, best of 3 passes.
  const parseTimes: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    const started = performance.now();
    for (const body of bodies) JSON.parse(body.toString('utf8'));
    parseTimes.push(performance.now() - started);
  }
  const parseEventsPerSecond = options.events / (Math.min(...parseTimes) / 1000);

  // BENCH_CPU_PROF=dir: the server writes a CPU profile of each of its threads there when it stops.
  // BENCH_NODE_ARGS: more options for the server's node (V8 flags to try, space-separated).
  const profileDir = process.env.BENCH_CPU_PROF;
  const nodeArgs = [
    ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
  ];
  const server = await TestServer.start({ set: { 'storage.fsync': options.fsync }, nodeArgs });
  try {
    // --warmup: older events first (six hours ending an hour before the measured ones: no bucket in
    // common, so compaction never merges the two), flushed and compacted, so that the measured run
    // meets a server whose code is compiled and whose heaps are grown.
    let warm = { segmentBytes: 0, segments: 0, since: new Date(0).toISOString() };
    if (options.warmup > 0) {
      const older = new EventGenerator(7, Date.now() - 14 * 3600_000, (6 * 3600_000) / options.warmup);
      await postAll(server, generateBodies(older, options.warmup, options.batch).bodies, options.concurrency, []);
      await waitFlushed(server);
      await waitCompacted(server);
      await patchConfig(server, { storage: { compaction_interval: '30s' } });
      const stats = (await request(`${server.api}/stats`)).body.data;
      warm = { segmentBytes: stats.segment_bytes, segments: stats.segment_count, since: new Date().toISOString() };
    }
    const latencies: number[] = [];
    const cpuBefore = processCpuSeconds(server.process.pid);
    const threadsBefore = threadCpu(server.process.pid);
    const started = performance.now();
    await postAll(server, bodies, options.concurrency, latencies);
    const seconds = (performance.now() - started) / 1000;
    const eventsPerSecond = options.events / seconds;
    const cpuSeconds = processCpuSeconds(server.process.pid) - cpuBefore;
    const threadsPosted = threadCpu(server.process.pid);
    if (process.env.BENCH_THREADS === '1') printThreadCpu('while posting', threadsPosted, threadsBefore);

    // Wait for the flusher to empty the write buffer, then stop cleanly and weigh the data dir.
    // Acknowledged is not the whole cost: the flush (columns, blooms, zstd) lags behind ingest and
    // finishes after the last request. Until the buffer is empty is what a sustained load pays.
    await waitFlushed(server);
    const flushedSeconds = (performance.now() - started) / 1000;
    const flushedCpuSeconds = processCpuSeconds(server.process.pid) - cpuBefore;
    const stats = (await request(`${server.api}/stats`)).body.data;
    const threadsFlushed = threadCpu(server.process.pid);
    if (process.env.BENCH_THREADS === '1') printThreadCpu('from the last answer until flushed', threadsFlushed, threadsPosted);
    // Then let compaction run (it recompresses at a higher zstd level, see compactor.ts): what the
    // events occupy for the rest of their retention.
    await waitCompacted(server);
    // Every event is compacted about once in its life (its bucket's segments are merged or
    // recompressed when the hour closes), so a load that lasts pays this too.
    const compactedCpuSeconds = processCpuSeconds(server.process.pid) - cpuBefore;
    if (process.env.BENCH_THREADS === '1') printThreadCpu('compaction', threadCpu(server.process.pid), threadsFlushed);
    const settled = (await request(`${server.api}/stats`)).body.data;
    // Which compactions ran: merges or lone rewrites, and how many kept their inputs' column blocks (segment-rewrite.ts).
    const history = (await request(`${server.api}/compaction/history?limit=10000&since=${warm.since}`)).body.data.compactions as {
      inputs: unknown[];
      rows: number;
      blocks_kept: boolean;
    }[];
    const rowsOf = (manifests: typeof history): number => manifests.reduce((sum, manifest) => sum + manifest.rows, 0);
    const merged = history.filter((manifest) => manifest.inputs.length > 1);
    const alone = history.filter((manifest) => manifest.inputs.length === 1);
    const kept = history.filter((manifest) => manifest.blocks_kept);
    await server.stop();
    const dataBytes = directoryBytes(server.dataDir);

    const row = (name: string, value: string): void => console.log(`| ${name.padEnd(44)} | ${value.padStart(16)} |`);
    console.log(
      `\ningest benchmark: ${options.events} events, batches of ${options.batch}, ${options.concurrency} in flight, fsync ${options.fsync}, warm-up ${options.warmup} events`,
    );
    console.log(`| ${'measure'.padEnd(44)} | ${'value'.padStart(16)} |`);
    console.log(`|${'-'.repeat(46)}|${'-'.repeat(18)}|`);
    row('events/s (POST /ingest, acknowledged)', eventsPerSecond.toFixed(0));
    row('MB/s of request bodies', (bodyBytes / 1e6 / seconds).toFixed(1));
    row('JSON.parse-only ceiling, events/s (1 core)', parseEventsPerSecond.toFixed(0));
    row('ratio ingest / JSON.parse ceiling', (eventsPerSecond / parseEventsPerSecond).toFixed(2));
    row('median request latency, ms', median(latencies).toFixed(1));
    row('server CPU (all threads) per event, µs', ((cpuSeconds * 1e6) / options.events).toFixed(2));
    row('server CPU cores busy while ingesting', (cpuSeconds / seconds).toFixed(2));
    row('events/s until all are in segments', (options.events / flushedSeconds).toFixed(0));
    row('server CPU per event, ingest + flush, µs', ((flushedCpuSeconds * 1e6) / options.events).toFixed(2));
    row(
      `bound: ${os.availableParallelism()} cores / CPU per event with flush`,
      ((os.availableParallelism() * options.events) / flushedCpuSeconds).toFixed(0),
    );
    row('server CPU per event, with compaction, µs', ((compactedCpuSeconds * 1e6) / options.events).toFixed(2));
    row(
      `bound: ${os.availableParallelism()} cores / CPU with compaction`,
      ((os.availableParallelism() * options.events) / compactedCpuSeconds).toFixed(0),
    );
    row('compactions: merges / rows', `${merged.length} / ${rowsOf(merged)}`);
    row('compactions: lone rewrites / rows', `${alone.length} / ${rowsOf(alone)}`);
    row('compactions that kept column blocks / rows', `${kept.length} / ${rowsOf(kept)}`);
    row('raw log-line bytes', String(lineBytes));
    row('request body bytes', String(bodyBytes));
    row('segment bytes after flush / log-line bytes', `${(((stats.segment_bytes - warm.segmentBytes) / lineBytes) * 100).toFixed(1)}%`);
    row('segments after flush', String(stats.segment_count - warm.segments));
    row(
      'segment bytes after compaction / log-line bytes',
      `${(((settled.segment_bytes - warm.segmentBytes) / lineBytes) * 100).toFixed(1)}%`,
    );
    if (options.warmup === 0) {
      row('data dir bytes after compaction and shutdown', String(dataBytes));
      row('data dir after compaction / log-line bytes', `${((dataBytes / lineBytes) * 100).toFixed(1)}%`);
      row('data dir after compaction / request bytes', `${((dataBytes / bodyBytes) * 100).toFixed(1)}%`);
    }
    row('segments after compaction', String(settled.segment_count - warm.segments));
    row('events stored', String(stats.total_events));
  } finally {
    await server.stop();
  }
}

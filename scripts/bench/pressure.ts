/**
 * `npm run bench -- pressure [--events N] [--seconds S] [--nodes 1|3]`
 *
 * Search during an ingest spike, on one node (and with `--nodes 3` on a cluster of three at
 * replication 1 as well), in one run:
 * 1. N events (default 1,000,000) are loaded and the server settles.
 * 2. Queries alone: 4 loops run the bench's four queries (count by host, `head 100`, `top 10 path`,
 *    avg + p99 by 5m) over the loaded range for S seconds (default 60): p50 and p99 latency.
 * 3. Ingest alone: 4 writers post 10,000-event batches as fast as they are accepted (honouring
 *    Retry-After) for S seconds: events accepted per second, and the refusals by status.
 * 4. Both at once for S seconds: the same measures, as ratios to 2 and 3.
 * 5. Memory: the resident size after the server has been idle 30 s, and `/status`'s parts.
 * Queries cover the loaded range only, so every phase asks the same work of them; with several
 * nodes CPU is summed over every node process (/proc).
 */
import fs from 'fs';
import { request, TestServer } from '../../test/helpers/server';
import { startBenchCluster } from './bench-cluster';
import { EventGenerator } from './generate';
import { processCpuSeconds } from './process-cpu';
import { load, median, percentile, QUERIES, waitSettled } from './query';

export interface PressureBenchOptions {
  events: number;
  seconds: number;
  nodes: number;
}

/** The allocator settings `npm start` and the Docker image run the server with (README, "Memory"). */
const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };

const QUERY_LOOPS = 4;
const WRITERS = 4;
const BATCH = 10_000;
/** The four queries of the cluster and pressure tables (the rare needle is left out: it answers from the token index in microseconds). */
const PRESSURE_QUERIES = QUERIES.filter((query) => !query.name.startsWith('search'));

interface QueryMeasure {
  latenciesMs: number[];
  failures: Map<string, number>;
}

interface IngestMeasure {
  accepted: number;
  refused: Map<number, number>;
  seconds: number;
}

function rssBytes(pid: number | undefined): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  } catch {
    return 0;
  }
}

/** Runs the query loops until `until`; every answer but a 200 is counted by status and code. */
async function queryLoops(servers: TestServer[], range: { from: string; to: string }, until: number): Promise<QueryMeasure> {
  const measure: QueryMeasure = { latenciesMs: [], failures: new Map() };
  await Promise.all(
    Array.from({ length: QUERY_LOOPS }, async (_, loop) => {
      for (let i = loop; Date.now() < until; i++) {
        const query = PRESSURE_QUERIES[i % PRESSURE_QUERIES.length]!;
        const server = servers[i % servers.length]!;
        const started = performance.now();
        const response = await fetch(`${server.api}/query`, {
          method: 'POST',
          body: JSON.stringify({ q: query.native, ...range, limit: 10_000 }),
          headers: { 'content-type': 'application/json' },
        });
        const body = (await response.json()) as { error?: { code?: string } };
        if (response.status === 200) measure.latenciesMs.push(performance.now() - started);
        else {
          const key = `${response.status} ${body.error?.code ?? ''}`;
          measure.failures.set(key, (measure.failures.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  return measure;
}

/** Request bodies of BATCH events each at the current time, made before the clock starts. */
function ingestBodies(count: number): string[] {
  const generator = new EventGenerator(11, Date.now(), 1);
  return Array.from({ length: count }, () => JSON.stringify(Array.from({ length: BATCH }, () => generator.next())));
}

/** Runs the writers until `until`: each posts a batch, and after a refusal waits its Retry-After (at most 1 s). */
async function writers(servers: TestServer[], bodies: string[], until: number): Promise<IngestMeasure> {
  const measure: IngestMeasure = { accepted: 0, refused: new Map(), seconds: 0 };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      for (let i = writer; Date.now() < until; i += WRITERS) {
        const server = servers[i % servers.length]!;
        const response = await fetch(`${server.api}/ingest`, {
          method: 'POST',
          body: bodies[i % bodies.length],
          headers: { 'content-type': 'application/json' },
        });
        await response.text();
        if (response.status === 200) measure.accepted += BATCH;
        else {
          measure.refused.set(response.status, (measure.refused.get(response.status) ?? 0) + 1);
          if (response.status !== 503 && response.status !== 429) throw new Error(`ingest answered ${response.status}`);
          const wait = Math.min(1, Number(response.headers.get('retry-after') ?? 1)) * 1000;
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    }),
  );
  measure.seconds = (performance.now() - started) / 1000;
  return measure;
}

function cpuOf(servers: TestServer[]): number {
  return servers.reduce((sum, server) => sum + processCpuSeconds(server.process.pid), 0);
}

interface PhaseResult {
  queries: QueryMeasure | null;
  ingest: IngestMeasure | null;
  cpuSeconds: number;
}

async function phase(
  servers: TestServer[],
  what: { queries: boolean; ingest: boolean },
  seconds: number,
  range: { from: string; to: string },
  bodies: string[],
): Promise<PhaseResult> {
  const cpuBefore = cpuOf(servers);
  const until = Date.now() + seconds * 1000;
  const [queries, ingest] = await Promise.all([
    what.queries ? queryLoops(servers, range, until) : Promise.resolve(null),
    what.ingest ? writers(servers, bodies, until) : Promise.resolve(null),
  ]);
  return { queries, ingest, cpuSeconds: cpuOf(servers) - cpuBefore };
}

function describeQueries(measure: QueryMeasure): string {
  const failures = [...measure.failures].map(([key, count]) => `${count}x ${key}`).join(', ');
  return `${measure.latenciesMs.length} answered, p50 ${median(measure.latenciesMs).toFixed(0)} ms, p99 ${percentile(measure.latenciesMs, 0.99).toFixed(0)} ms${failures === '' ? '' : `; refused: ${failures}`}`;
}

function describeIngest(measure: IngestMeasure): string {
  const refused = [...measure.refused].map(([status, count]) => `${count}x ${status}`).join(', ');
  return `${Math.round(measure.accepted / measure.seconds).toLocaleString('en-US')} events/s accepted${refused === '' ? '' : `; refused: ${refused}`}`;
}

async function runOn(servers: TestServer[], options: PressureBenchOptions, label: string): Promise<void> {
  const loadStarted = Date.now();
  await load(servers[0]!, options, null);
  const range = { from: new Date(loadStarted - 7 * 3600_000).toISOString(), to: new Date(Date.now()).toISOString() };
  for (const server of servers) await waitSettled(server);
  console.log(`${label}: ${options.events.toLocaleString('en-US')} events loaded and settled`);
  // Enough distinct bodies that a writer never posts the one it just posted.
  const bodies = ingestBodies(WRITERS * 2);

  const alone = await phase(servers, { queries: true, ingest: false }, options.seconds, range, bodies);
  console.log(`  queries alone: ${describeQueries(alone.queries!)}`);
  for (const server of servers) await waitSettled(server);
  const ingestAlone = await phase(servers, { queries: false, ingest: true }, options.seconds, range, bodies);
  console.log(`  ingest alone: ${describeIngest(ingestAlone.ingest!)}`);
  for (const server of servers) await waitSettled(server);
  const both = await phase(servers, { queries: true, ingest: true }, options.seconds, range, bodies);
  console.log(`  together: queries ${describeQueries(both.queries!)}; ingest ${describeIngest(both.ingest!)}`);

  for (const server of servers) await waitSettled(server);
  await new Promise((resolve) => setTimeout(resolve, 30_000));
  const rss = servers.map((server) => rssBytes(server.process.pid));
  const parts = (await request(`${servers[0]!.api}/status`)).body.data.memory;
  const stored = (await request(`${servers[0]!.api}/stats`)).body.data.total_events as number;

  const p99Alone = percentile(alone.queries!.latenciesMs, 0.99);
  const p99Loaded = percentile(both.queries!.latenciesMs, 0.99);
  const rateAlone = ingestAlone.ingest!.accepted / ingestAlone.ingest!.seconds;
  const rateLoaded = both.ingest!.accepted / both.ingest!.seconds;
  console.log(`\n| ${label} | alone | with the other load | ratio | goal |`);
  console.log('|---|---:|---:|---:|---|');
  console.log(`| query p99 | ${p99Alone.toFixed(0)} ms | ${p99Loaded.toFixed(0)} ms | ${(p99Loaded / p99Alone).toFixed(2)}x | <= 5x |`);
  console.log(
    `| query p50 | ${median(alone.queries!.latenciesMs).toFixed(0)} ms | ${median(both.queries!.latenciesMs).toFixed(0)} ms | ${(median(both.queries!.latenciesMs) / median(alone.queries!.latenciesMs)).toFixed(2)}x | |`,
  );
  console.log(
    `| ingest accepted | ${Math.round(rateAlone).toLocaleString('en-US')} events/s | ${Math.round(rateLoaded).toLocaleString('en-US')} events/s | ${(rateLoaded / rateAlone).toFixed(2)}x | >= 0.5x |`,
  );
  console.log(
    `| CPU seconds (all nodes) | ${(alone.cpuSeconds + ingestAlone.cpuSeconds).toFixed(0)} (queries + ingest phases) | ${both.cpuSeconds.toFixed(0)} | | |`,
  );
  console.log(
    `| idle RSS after 30 s, ${stored.toLocaleString('en-US')} events stored | ${rss.map((bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`).join(' / ')} | | | <= 1 GiB a node |`,
  );
  console.log(`\n/status memory of ${label === 'one node' ? 'the node' : 'the first node'}: ${JSON.stringify(parts)}`);
}

export async function runPressureBench(options: PressureBenchOptions): Promise<void> {
  // The result cache off: every query of the loops is work, not a lookup.
  const noCache = { 'query.cache_max_bytes': 0 };
  const one = await TestServer.start({ set: noCache, env: MALLOC_ENV });
  try {
    await runOn([one], options, 'one node');
  } finally {
    await one.kill();
  }
  if (options.nodes > 1) {
    // Several nodes share this machine's cores: each gets its share of the worker threads.
    const cluster = await startBenchCluster(
      options.nodes,
      { ...noCache, 'server.ingest_workers': 1, 'server.query_workers': 1, 'server.codec_workers': 1 },
      undefined,
      MALLOC_ENV,
    );
    try {
      await runOn(cluster, options, `${options.nodes} nodes`);
    } finally {
      await Promise.all(cluster.map((server) => server.kill()));
    }
  }
}

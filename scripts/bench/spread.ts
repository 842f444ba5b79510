/**
 * `npm run bench -- spread [--events N (2000)] [--runs N (15)] [--nodes N (3)] [--baseline CHECKOUT]`
 *
 * What a write request costs when its events fall in many partition keys: the same `--events`
 * events, once spread over an hour and once inside one bucket, posted in turn (one at a time, to
 * each node in turn) to a single node and to `--nodes` nodes at replication 1 and 2, all with
 * `cluster.bucket_span=10s` and flushes held off: the spread request holds some 360 buckets (of 16
 * partitions each in a cluster, of one on a single node), the other one bucket. Prints per setup
 * the median time to acknowledge each request and the CPU of every node's process while it ran
 * (which takes in what the request before left running), and the ratios spread / one bucket.
 *
 * With `--baseline` (another checkout of the repository, built) each setup runs on that build too,
 * its requests in turn with this build's, so both meet the machine's same spells.
 */
import path from 'path';
import { performance } from 'perf_hooks';
import { request, TestServer } from '../../test/helpers/server';
import { startBenchCluster } from './bench-cluster';
import { median } from './codec-builds';
import { EventGenerator } from './generate';
import { processCpuSeconds } from './process-cpu';

export interface SpreadBenchOptions {
  events: number;
  runs: number;
  nodes: number;
  baseline: string | null;
}

interface Setup {
  name: string;
  nodes: number;
  replication: number;
}

interface Build {
  name: string;
  /** The launcher to run (`scripts/trawl` of a checkout); undefined: this checkout's. */
  cli: string | undefined;
}

const SPAN_MS = 3600_000;
const BUCKET_SPAN = '10s';

/** One request's events as a body: spread evenly over `spanMs` from `startMs`. */
function body(events: number, startMs: number, spanMs: number): Buffer {
  const generator = new EventGenerator(7, startMs, spanMs / events / 1.0001);
  const batch = Array.from({ length: events }, () => generator.next());
  return Buffer.from(JSON.stringify(batch));
}

async function startNodes(setup: Setup, build: Build): Promise<TestServer[]> {
  // Flushes stay out of the timed requests: the write buffer takes every request of the run.
  const base = { 'cluster.bucket_span': BUCKET_SPAN, 'storage.flush_interval': '1h' };
  if (setup.nodes === 1) return [await TestServer.start({ set: base, cli: build.cli })];
  const set = {
    ...base,
    'cluster.replication_factor': setup.replication,
    'server.ingest_workers': 1,
    'server.query_workers': 1,
    'server.codec_workers': 1,
  };
  return startBenchCluster(setup.nodes, set, build.cli);
}

/** Posts a body; the ms to its answer and the CPU seconds of every node meanwhile. */
async function post(servers: TestServer[], to: TestServer, payload: Buffer): Promise<{ ms: number; cpu: number }> {
  const cpuBefore = servers.reduce((sum, server) => sum + processCpuSeconds(server.process.pid), 0);
  const started = performance.now();
  const answer = await request(`${to.api}/ingest`, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } });
  const ms = performance.now() - started;
  if (answer.status !== 200) throw new Error(`ingest answered ${answer.status}: ${answer.text}`);
  const cpu = servers.reduce((sum, server) => sum + processCpuSeconds(server.process.pid), 0) - cpuBefore;
  return { ms, cpu };
}

interface Measured {
  spreadMs: number[];
  oneMs: number[];
  spreadCpu: number;
  oneCpu: number;
}

export async function runSpreadBench(options: SpreadBenchOptions): Promise<void> {
  const startMs = Date.now() - 2 * SPAN_MS;
  const spread = body(options.events, startMs, SPAN_MS);
  // Inside one 10 s bucket, whatever the hour's start.
  const oneStart = Math.ceil(startMs / 10_000) * 10_000;
  const one = body(options.events, oneStart, 9_000);
  const setups: Setup[] = [
    { name: 'single node', nodes: 1, replication: 1 },
    { name: `${options.nodes} nodes, replication 1`, nodes: options.nodes, replication: 1 },
    { name: `${options.nodes} nodes, replication 2`, nodes: options.nodes, replication: 2 },
  ];
  const builds: Build[] = [{ name: 'this build', cli: undefined }];
  if (options.baseline !== null)
    builds.push({ name: `baseline ${options.baseline}`, cli: path.join(path.resolve(options.baseline), 'scripts', 'trawl') });
  const rows: { setup: Setup; build: Build; measured: Measured }[] = [];
  for (const setup of setups) {
    console.log(`${setup.name}: starting`);
    const running = await Promise.all(builds.map((build) => startNodes(setup, build)));
    try {
      const measured = builds.map((): Measured => ({ spreadMs: [], oneMs: [], spreadCpu: 0, oneCpu: 0 }));
      // One unmeasured round (the JIT, the connections between nodes), then `runs` rounds, each
      // posting both bodies to every build in turn.
      for (let round = -1; round < options.runs; round++) {
        for (const [b, servers] of running.entries()) {
          const to = servers[(round + 1) % servers.length]!;
          const a = await post(servers, to, spread);
          const c = await post(servers, to, one);
          if (round < 0) continue;
          measured[b]!.spreadMs.push(a.ms);
          measured[b]!.spreadCpu += a.cpu;
          measured[b]!.oneMs.push(c.ms);
          measured[b]!.oneCpu += c.cpu;
        }
      }
      for (const [b, build] of builds.entries()) rows.push({ setup, build, measured: measured[b]! });
    } finally {
      await Promise.all(running.flat().map((server) => server.stop()));
    }
  }
  console.log(
    `\nspread benchmark: ${options.events} events a request, spread over an hour or in one bucket, cluster.bucket_span ${BUCKET_SPAN}, median of ${options.runs} requests each`,
  );
  console.log('| setup | build | spread ms | one bucket ms | ratio | spread CPU ms, all nodes | one bucket CPU ms | CPU ratio |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const { setup, build, measured } of rows) {
    const spreadMs = median(measured.spreadMs);
    const oneMs = median(measured.oneMs);
    const spreadCpu = (measured.spreadCpu * 1000) / options.runs;
    const oneCpu = (measured.oneCpu * 1000) / options.runs;
    console.log(
      `| ${setup.name} | ${build.name} | ${spreadMs.toFixed(1)} | ${oneMs.toFixed(1)} | ${(spreadMs / oneMs).toFixed(2)}x | ${spreadCpu.toFixed(0)} | ${oneCpu.toFixed(0)} | ${(spreadCpu / oneCpu).toFixed(2)}x |`,
    );
  }
}

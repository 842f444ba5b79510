/**
 * `npm run bench -- cluster [--events N] [--warmup N (= events)] [--hours N (6)] [--range-hours N] [--from INDEXES] [--runs N (21)] [--warm-runs N (1)] [--nodes N] [--concurrency N] [--partitions N (16)] [--node-options=FLAGS] [--one-partitioned] [--baseline DIST]`
 *
 * The same generated events (default 1,000,000 over the last `--hours`, six) on one node, then on
 * `--nodes` nodes (default 3) of this machine at replication 1 and at replication 2, in one run:
 * - a warm-up of `--warmup` older events first (as many hours, ending an hour before the measured ones),
 *   its CPU per event printed as the cold figure: every node process compiles its code once;
 * - ingest events/s, the requests spread over every node as a load balancer would, and the CPU
 *   per event summed over every node's process;
 * - the query bench's queries through the first node (median of `runs`, after `warm-runs`
 *   unmeasured rounds of all six, before any is timed), the CPU every node spent on them (per query, from /proc: in all, and
 *   the coordinator's with each other node's, and of that each node's main thread), and whether each answer equals the single node's. Every setup stays up until all have ingested, and each run asks
 *   every setup in turn, so that the machine's slow and fast spells fall on all of them alike;
 * - each node's events and storage bytes, against an even share.
 * `--from INDEXES` asks the six queries of other indexes than `main`, the one the events are in:
 * `--from '*'` as the web UI's search page does, or a glob (`--from 'ma*'`).
 * Every node of a cluster gets a share of the machine's worker threads (server.*_workers), since
 * they all run on the same cores. The result cache is off (`query.cache_max_bytes` 0), so that a
 * timed query is the engine's work alone (clearing it is an audited action: in a cluster, a write).
 * Ratios against the single node are what to quote. `--node-options=FLAGS` (with `=`: the flags start with dashes) is every node process's
 * NODE_OPTIONS (V8 flags to compare, the same for every setup). `--one-partitioned` adds a cluster
 * of one node with the clusters' partitions: what the cluster's placement and query path cost on
 * one node (its partitions share one owner, so it stores a bucket in one segment, as a node
 * alone does), apart from what asking other nodes costs. `--baseline DIST` (another build's `dist` folder) adds a
 * cluster at replication 1 of that build, asked in turn with the others: two builds' ratios
 * against the same single node, through the same slow and fast spells of the machine.
 */
import path from 'path';
import { performance } from 'perf_hooks';
import { request, TestServer } from '../../test/helpers/server';
import { startBenchCluster } from './bench-cluster';
import { median } from './codec-builds';
import { EventGenerator } from './generate';
import { mainThreadCpuSeconds, processCpuSeconds } from './process-cpu';
import { QUERIES, timeNativeOnce, type BenchQuery } from './query';

export interface ClusterBenchOptions {
  events: number;
  /** Older events ingested first, into new nodes: the cold figures. */
  warmup: number;
  /**
   * The hours the measured events span (and the warm-up's, before them): a query over more hour
   * buckets names more partition keys, which the nodes of a cluster handle and the single node does not.
   */
  hours: number;
  /**
   * How far back the queries' range starts, in hours before now (null: an hour before the
   * measured events). A range of more than 32,768 partition keys (85 days at 16 partitions) asks
   * every node for its keys first (node/cluster/query-distribution.ts MAX_PLACED_KEYS).
   */
  rangeHours: number | null;
  /** The queries' `from` in place of `main` (null: main). */
  from: string | null;
  runs: number;
  /**
   * Unmeasured runs of each query on each setup before the timed ones. A cluster's glue runs once
   * a query and reaches V8's optimizer late: a few runs time new processes, hundreds the nodes of
   * a cluster that has answered for a while.
   */
  warmRuns: number;
  nodes: number;
  /** Requests in flight during ingest. */
  concurrency: number;
  /** cluster.partitions of the clusters (16, the default). */
  partitions: number;
  /** NODE_OPTIONS of every node process of every setup, or null for none. */
  nodeOptions: string | null;
  /** Adds a one-node cluster with `partitions` partitions beside the single node. */
  onePartitioned: boolean;
  /** Another build's `dist`: adds its cluster at replication 1 (null: none). */
  baseline: string | null;
}

interface Setup {
  name: string;
  nodes: number;
  replication: number;
  partitions: number;
  /** Another build's `dist/node/cli.js` the nodes run (absent: this build). */
  cli?: string;
}

interface Outcome {
  setup: Setup;
  ingestEventsPerSecond: number;
  /** CPU seconds of every node's process during ingest, per event, in µs. */
  cpuMicrosPerEvent: number;
  /**
   * The same until every node flushed and compacted everything: a burst's acknowledged rate
   * leaves the single node's compaction for after it (its burst is over sooner), while slower
   * cluster nodes compact during theirs; this is the rate the machine sustains.
   */
  settledEventsPerSecond: number;
  settledCpuMicrosPerEvent: number;
  /** The warm-up's CPU per event until settled: the first events new node processes take (null without one). */
  coldCpuMicrosPerEvent: number | null;
  /** Requests answered 503 and sent again. */
  retries: number;
  queryMs: Map<string, number>;
  /** CPU per query, every node, ms. */
  queryCpuMs: Map<string, number>;
  /** The same per node, the coordinator (the first) first. */
  queryNodeCpuMs: Map<string, number[]>;
  /** Of that, each node's main thread (the event loop: HTTP, gRPC, planning, merging), the coordinator first. */
  queryNodeMainCpuMs: Map<string, number[]>;
  answers: Map<string, string>;
  eventsPerNode: number[];
  storageBytes: number;
}

const BATCH = 10_000;

/** The query bench's queries, asked of `from` instead of `main` (null: as they are). */
function queriesOf(from: string | null): BenchQuery[] {
  return from === null ? QUERIES : QUERIES.map((query) => ({ ...query, native: query.native.replace(/^from main\b/, `from ${from}`) }));
}

/** Every query asks this range, fixed at the start: an answer timed minutes later covers the same events. */
interface Range {
  from: string;
  to: string;
}

function bodies(events: number, startMs: number, spanMs: number, seed = 11): Buffer[] {
  const generator = new EventGenerator(seed, startMs, spanMs / events);
  const out: Buffer[] = [];
  for (let produced = 0; produced < events; produced += BATCH) {
    const batch = [];
    for (let i = 0; i < Math.min(BATCH, events - produced); i++) batch.push(generator.next());
    out.push(Buffer.from(JSON.stringify(batch)));
  }
  return out;
}

async function startNodes(setup: Setup, nodeOptions: string | null, hours: number): Promise<TestServer[]> {
  const env = nodeOptions === null ? undefined : { NODE_OPTIONS: nodeOptions };
  // Compaction runs often, so the segments settle soon after ingest (waitSettled); no result cache.
  // Retention (7 days by default) keeps the warm-up and the measured hours with a day to spare: an
  // event older than it is refused, and its segment dropped later, at different times on each setup.
  const compaction = {
    'storage.compaction_interval': '2s',
    'query.cache_max_bytes': 0,
    retention: `${Math.max(7, Math.ceil((2 * hours + 1) / 24) + 1)}d`,
  };
  // A node alone (partitions 1); a one-node cluster keeps the clusters' partitions.
  if (setup.nodes === 1 && setup.partitions === 1) return [await TestServer.start({ set: compaction, env })];
  const share = (count: number): number => Math.max(1, Math.round(count / setup.nodes));
  // The default heartbeat and failure timeout: heartbeats cost what they cost a real cluster.
  const set = {
    ...compaction,
    'cluster.replication_factor': setup.replication,
    'cluster.partitions': setup.partitions,
    'server.ingest_workers': share(2),
    'server.query_workers': share(2),
    'server.codec_workers': 1,
  };
  return startBenchCluster(setup.nodes, set, setup.cli, env);
}

/** Posts every body, `concurrency` at a time, each to the next node in turn; a 503 is retried after a pause. Returns the seconds taken and the retries. */
async function ingest(servers: TestServer[], all: Buffer[], concurrency: number): Promise<{ seconds: number; retries: number }> {
  let next = 0;
  let retries = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < all.length) {
      const n = next++;
      const server = servers[n % servers.length]!;
      for (;;) {
        const answer = await request(`${server.api}/ingest`, {
          method: 'POST',
          body: all[n],
          headers: { 'content-type': 'application/json' },
        });
        if (answer.status === 200) break;
        if (answer.status !== 503) throw new Error(`ingest answered ${answer.status}: ${answer.text}`);
        retries++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { seconds: (performance.now() - started) / 1000, retries };
}

/**
 * Waits until every node has flushed its write buffer and compaction has nothing left to merge,
 * as the query bench does: queries are timed on settled segments, not on a flush's small ones.
 */
async function waitSettled(servers: TestServer[]): Promise<void> {
  const giveUpAt = performance.now() + 15 * 60_000;
  for (const server of servers) {
    for (;;) {
      if (performance.now() > giveUpAt) throw new Error('compaction did not settle within 15 minutes');
      const storage = (await request(`${server.api}/metrics`)).body.data.storage;
      const buffered = (await request(`${server.api}/stats`)).body.data.buffered_events as number;
      if (buffered === 0 && !storage.compaction_running && storage.compaction_pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** An answer as text that two correct engines give alike (rows of an aggregate; events in order). */
async function answerOf(server: TestServer, q: string, range: Range): Promise<string> {
  const answer = await request(`${server.api}/query`, {
    method: 'POST',
    body: JSON.stringify({ q, limit: 1000, ...range }),
    headers: { 'content-type': 'application/json' },
  });
  const data = answer.body.data;
  if (answer.status !== 200) return `error ${answer.status}`;
  if (data.type === 'aggregate') return JSON.stringify(data.rows);
  return JSON.stringify(data.events.map((event: Record<string, unknown>) => [event._time, event._raw]));
}

/** Posts `bodies` and waits until every node settled: seconds and CPU seconds (all nodes) to acknowledge and to settle. */
async function ingestSettled(
  servers: TestServer[],
  bodies: Buffer[],
  concurrency: number,
): Promise<{ seconds: number; cpuSeconds: number; settledSeconds: number; settledCpuSeconds: number; retries: number }> {
  const cpuBefore = setupCpuSeconds(servers);
  const started = performance.now();
  const { seconds, retries } = await ingest(servers, bodies, concurrency);
  const cpuSeconds = setupCpuSeconds(servers) - cpuBefore;
  await waitSettled(servers);
  return {
    seconds,
    cpuSeconds,
    settledSeconds: (performance.now() - started) / 1000,
    settledCpuSeconds: setupCpuSeconds(servers) - cpuBefore,
    retries,
  };
}

/** A setup's nodes after its ingest, up for the queries. */
interface Ingested {
  setup: Setup;
  servers: TestServer[];
  seconds: number;
  cpuSeconds: number;
  /** From the first request until every node flushed and compacted everything. */
  settledSeconds: number;
  settledCpuSeconds: number;
  /** The warm-up's CPU seconds until settled, all nodes (null without one). */
  coldCpuSeconds: number | null;
  retries: number;
}

/** The bodies every setup ingests: the warm-up's (older) first, then the measured ones. */
interface BenchData {
  warmup: Buffer[];
  measured: Buffer[];
}

async function ingestInto(setup: Setup, data: BenchData, options: ClusterBenchOptions, running: TestServer[][]): Promise<Ingested> {
  console.log(`${setup.name}: starting ${setup.nodes} node(s)`);
  const servers = await startNodes(setup, options.nodeOptions, options.hours);
  running.push(servers);
  const cold = data.warmup.length === 0 ? null : await ingestSettled(servers, data.warmup, options.concurrency);
  const measured = await ingestSettled(servers, data.measured, options.concurrency);
  return { setup, servers, ...measured, coldCpuSeconds: cold === null ? null : cold.settledCpuSeconds };
}

/** A setup's CPU seconds so far, summed over every node's process (/proc). */
function setupCpuSeconds(servers: readonly TestServer[]): number {
  return servers.reduce((sum, server) => sum + processCpuSeconds(server.process.pid), 0);
}

interface QueryTimes {
  /** Median latency, ms. */
  ms: Map<string, number>;
  /** CPU of every node over the timed runs, per query, ms (/proc counts in 10 ms ticks: a mean, not a median). */
  cpuMs: Map<string, number>;
  /** The same per node, the coordinator first. */
  nodeCpuMs: Map<string, number[]>;
  /** Of that, each node's main thread. */
  nodeMainCpuMs: Map<string, number[]>;
}

/**
 * Times every query on every setup: `warmRuns` unmeasured rounds of every query first (the JIT,
 * the block caches), then for each query `runs` rounds, each asking every setup once in turn. Medians, ms; and the CPU
 * every node of the setup spent during its timed runs, per query.
 */
async function timeInTurn(
  ingested: Ingested[],
  queries: readonly BenchQuery[],
  range: Range,
  runs: number,
  warmRuns: number,
): Promise<QueryTimes[]> {
  const times = ingested.map(() => new Map<string, number[]>());
  const cpu = ingested.map(() => new Map<string, number[]>());
  const mainCpu = ingested.map(() => new Map<string, number[]>());
  const add = (into: Map<string, number[]>, name: string, spent: number[]): void => {
    const sums = into.get(name) ?? spent.map(() => 0);
    into.set(
      name,
      sums.map((sum, n) => sum + spent[n]!),
    );
  };
  // Every query warms before any is timed: code that every query runs (parsing, planning, a
  // fragment's round trip) reaches V8's optimizing tier only after thousands of queries, so warming
  // each query just before its own timed runs would time the first queries colder than the last.
  for (let run = 0; run < warmRuns; run++) {
    for (const query of queries) {
      for (const each of ingested) await timeNativeOnce(each.servers[0]!, query, { ...range }, { cached: false });
    }
  }
  for (const query of queries) {
    for (let run = 0; run < runs; run++) {
      for (const [i, each] of ingested.entries()) {
        const cpuBefore = each.servers.map((server) => processCpuSeconds(server.process.pid));
        const mainBefore = each.servers.map((server) => mainThreadCpuSeconds(server.process.pid));
        const { ms } = await timeNativeOnce(each.servers[0]!, query, { ...range }, { cached: false });
        add(
          cpu[i]!,
          query.name,
          each.servers.map((server, n) => processCpuSeconds(server.process.pid) - cpuBefore[n]!),
        );
        add(
          mainCpu[i]!,
          query.name,
          each.servers.map((server, n) => mainThreadCpuSeconds(server.process.pid) - mainBefore[n]!),
        );
        const list = times[i]!.get(query.name) ?? [];
        list.push(ms);
        times[i]!.set(query.name, list);
      }
    }
  }
  const perQueryMs = (seconds: Map<string, number[]>): Map<string, number[]> =>
    new Map([...seconds].map(([name, each]) => [name, each.map((s) => (s * 1000) / runs)]));
  return times.map((byQuery, i) => {
    const perNode = perQueryMs(cpu[i]!);
    return {
      ms: new Map([...byQuery].map(([name, list]) => [name, median(list)])),
      cpuMs: new Map([...perNode].map(([name, each]) => [name, each.reduce((sum, ms) => sum + ms, 0)])),
      nodeCpuMs: perNode,
      nodeMainCpuMs: perQueryMs(mainCpu[i]!),
    };
  });
}

async function outcomeOf(each: Ingested, queryTimes: QueryTimes, range: Range, options: ClusterBenchOptions): Promise<Outcome> {
  const answers = new Map<string, string>();
  for (const query of queriesOf(options.from)) answers.set(query.name, await answerOf(each.servers[0]!, query.native, range));
  const stats = await Promise.all(each.servers.map(async (server) => (await request(`${server.api}/stats`)).body.data));
  return {
    setup: each.setup,
    ingestEventsPerSecond: options.events / each.seconds,
    cpuMicrosPerEvent: (each.cpuSeconds * 1e6) / options.events,
    settledEventsPerSecond: options.events / each.settledSeconds,
    settledCpuMicrosPerEvent: (each.settledCpuSeconds * 1e6) / options.events,
    coldCpuMicrosPerEvent: each.coldCpuSeconds === null ? null : (each.coldCpuSeconds * 1e6) / options.warmup,
    retries: each.retries,
    queryMs: queryTimes.ms,
    queryCpuMs: queryTimes.cpuMs,
    queryNodeCpuMs: queryTimes.nodeCpuMs,
    queryNodeMainCpuMs: queryTimes.nodeMainCpuMs,
    answers,
    eventsPerNode: stats.map((stat) => stat.total_events as number),
    storageBytes: stats.reduce((sum, stat) => sum + (stat.storage_bytes as number), 0),
  };
}

export async function runClusterBench(options: ClusterBenchOptions): Promise<void> {
  const spanMs = options.hours * 3600_000;
  const startMs = Date.now() - spanMs;
  // The warm-up's hours end an hour before the measured ones: no bucket is shared, and the queries' range leaves them out.
  const data = {
    warmup: options.warmup > 0 ? bodies(options.warmup, startMs - spanMs - 3600_000, spanMs, 7) : [],
    measured: bodies(options.events, startMs, spanMs),
  };
  const fromMs = options.rangeHours === null ? startMs - 3600_000 : Date.now() - options.rangeHours * 3600_000;
  const range = { from: new Date(fromMs).toISOString(), to: new Date(Date.now() + 3 * 3600_000).toISOString() };
  const queries = queriesOf(options.from);
  const setups: Setup[] = [
    { name: 'single node', nodes: 1, replication: 1, partitions: 1 },
    ...(options.onePartitioned
      ? [{ name: `1 node, ${options.partitions} partitions`, nodes: 1, replication: 1, partitions: options.partitions }]
      : []),
    { name: `${options.nodes} nodes, replication 1`, nodes: options.nodes, replication: 1, partitions: options.partitions },
    ...(options.baseline === null
      ? []
      : [
          {
            name: `${options.nodes} nodes, replication 1, baseline`,
            nodes: options.nodes,
            replication: 1,
            partitions: options.partitions,
            cli: path.resolve(options.baseline, 'node', 'cli.js'),
          },
        ]),
    { name: `${options.nodes} nodes, replication 2`, nodes: options.nodes, replication: 2, partitions: options.partitions },
  ];
  const started: TestServer[][] = [];
  const outcomes: Outcome[] = [];
  try {
    const ingested: Ingested[] = [];
    for (const setup of setups) ingested.push(await ingestInto(setup, data, options, started));
    const queryMs = await timeInTurn(ingested, queries, range, options.runs, options.warmRuns);
    for (const [i, each] of ingested.entries()) outcomes.push(await outcomeOf(each, queryMs[i]!, range, options));
  } finally {
    await Promise.all(started.flat().map((server) => server.stop()));
  }
  const single = outcomes[0]!;
  console.log(
    `\ncluster benchmark: ${options.events} events over ${options.hours} hours after a warm-up of ${options.warmup}, queried from ${range.from} as \`from ${options.from ?? 'main'}\`, cluster.partitions ${options.partitions}, queries median of ${options.runs} runs after ${options.warmRuns} unmeasured (ms), ratios against the single node`,
  );
  console.log(`| measure | ${outcomes.map((outcome) => outcome.setup.name).join(' | ')} |`);
  console.log(`|---|${outcomes.map(() => '---:').join('|')}|`);
  console.log(
    `| ingest events/s | ${outcomes.map((o) => `${o.ingestEventsPerSecond.toFixed(0)} (${(o.ingestEventsPerSecond / single.ingestEventsPerSecond).toFixed(2)}x)`).join(' | ')} |`,
  );
  console.log(
    `| ingest CPU per event, all nodes (µs) | ${outcomes.map((o) => `${o.cpuMicrosPerEvent.toFixed(2)} (${(o.cpuMicrosPerEvent / single.cpuMicrosPerEvent).toFixed(2)}x)`).join(' | ')} |`,
  );
  console.log(
    `| events/s until flushed and compacted | ${outcomes.map((o) => `${o.settledEventsPerSecond.toFixed(0)} (${(o.settledEventsPerSecond / single.settledEventsPerSecond).toFixed(2)}x)`).join(' | ')} |`,
  );
  console.log(
    `| CPU per event until then, all nodes (µs) | ${outcomes.map((o) => `${o.settledCpuMicrosPerEvent.toFixed(2)} (${(o.settledCpuMicrosPerEvent / single.settledCpuMicrosPerEvent).toFixed(2)}x)`).join(' | ')} |`,
  );
  if (single.coldCpuMicrosPerEvent !== null) {
    const base = single.coldCpuMicrosPerEvent;
    console.log(
      `| CPU per event until then, the warm-up into new nodes (µs) | ${outcomes.map((o) => `${o.coldCpuMicrosPerEvent!.toFixed(2)} (${(o.coldCpuMicrosPerEvent! / base).toFixed(2)}x)`).join(' | ')} |`,
    );
  }
  console.log(`| ingest requests retried after 503 | ${outcomes.map((o) => String(o.retries)).join(' | ')} |`);
  for (const query of queries) {
    const base = single.queryMs.get(query.name)!;
    const cells = outcomes.map((o) => {
      const ms = o.queryMs.get(query.name)!;
      const same = o.answers.get(query.name) === single.answers.get(query.name) ? '' : ' DIFFERS';
      return `${ms.toFixed(1)} (${(ms / base).toFixed(2)}x)${same}`;
    });
    console.log(`| ${query.name} | ${cells.join(' | ')} |`);
  }
  for (const query of queries) {
    const base = single.queryCpuMs.get(query.name)!;
    const cells = outcomes.map(
      (o) => `${o.queryCpuMs.get(query.name)!.toFixed(1)} (${(o.queryCpuMs.get(query.name)! / base).toFixed(2)}x)`,
    );
    console.log(`| CPU per query, all nodes (ms): ${query.name} | ${cells.join(' | ')} |`);
  }
  const perNodeRows = (label: string, pick: (o: Outcome) => Map<string, number[]>): void => {
    for (const query of queries) {
      const cells = outcomes.map((o) =>
        pick(o)
          .get(query.name)!
          .map((ms) => ms.toFixed(1))
          .join(' + '),
      );
      console.log(`| ${label} (ms): ${query.name} | ${cells.join(' | ')} |`);
    }
  };
  perNodeRows('the same per node, the coordinator first', (o) => o.queryNodeCpuMs);
  perNodeRows("of that, each node's main thread", (o) => o.queryNodeMainCpuMs);
  console.log(
    `| storage bytes, all nodes | ${outcomes.map((o) => `${(o.storageBytes / 1e6).toFixed(1)} MB (${(o.storageBytes / single.storageBytes).toFixed(2)}x)`).join(' | ')} |`,
  );
  console.log(
    `| events per node (min share of even) | ${outcomes
      .map((o) => {
        const even = o.eventsPerNode.reduce((sum, n) => sum + n, 0) / o.eventsPerNode.length;
        return `${o.eventsPerNode.join(' / ')} (${(Math.min(...o.eventsPerNode) / even).toFixed(2)})`;
      })
      .join(' | ')} |`,
  );
}

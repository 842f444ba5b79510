/**
 * `npm run bench -- query [--events N] [--runs N] [--ingest-rate N] [--baseline DIST]`
 *
 * Loads N generated events (default 10,000,000) into a real server, then times six queries
 * (median of `runs`), and in the same run: DuckDB (`@duckdb/node-api`, installed into
 * `.bench/duckdb`, outside the project's lockfile) over the same events in a native table, and
 * ripgrep counting the rare needle in the raw NDJSON. Finally it measures the p99 latency of a
 * simple query while ingest runs at `--ingest-rate` events/s.
 *
 * With `--baseline DIST` (another build's `dist` folder) it then serves copies of the same data
 * dir with this build and the baseline in turn, round after round, and prints each query's
 * median per build and their ratio: two builds compared on identical segments, alternating, so
 * that the machine's drift falls on both.
 */
import { execFileSync, spawnSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { REPO_ROOT, request, TestServer } from '../../test/helpers/server';
import { EventGenerator } from './generate';
import { processCpuSeconds } from './process-cpu';

export interface QueryBenchOptions {
  events: number;
  runs: number;
  ingestRate: number;
  /** Another build's `dist` folder to compare with on the same data, or null. */
  baseline: string | null;
}

/** Rounds of the build comparison: each round starts each build once on its copy of the data. */
const COMPARE_ROUNDS = 4;

const NEEDLE = 'zq7needlexv';
const NEEDLE_EVERY = 1_000_000;

export interface BenchQuery {
  name: string;
  native: string;
  sql: string;
}

export const QUERIES: BenchQuery[] = [
  {
    name: 'stats count() by host',
    native: 'from main | stats count() by host',
    sql: 'SELECT host, count(*) FROM logs GROUP BY host ORDER BY host',
  },
  {
    name: `search ${NEEDLE} (rare needle)`,
    native: `from main | search ${NEEDLE}`,
    sql: `SELECT * FROM logs WHERE event ILIKE '%${NEEDLE}%' ORDER BY time DESC LIMIT 1000`,
  },
  {
    name: 'where status >= 500 | top 10 path',
    native: 'from main | where status >= 500 | top 10 path',
    sql: 'SELECT path, count(*) AS c FROM logs WHERE status >= 500 GROUP BY path ORDER BY c DESC, path LIMIT 10',
  },
  {
    name: 'stats avg, p99(duration_ms) by bin(_time, 5m)',
    native: 'from main | stats avg(duration_ms), p99(duration_ms) by bin(_time, 5m)',
    sql: "SELECT time_bucket(INTERVAL '5 minutes', to_timestamp(time)) AS t, avg(duration_ms), quantile_cont(duration_ms, 0.99) FROM logs GROUP BY t ORDER BY t",
  },
  {
    name: 'where level = "error" | head 100',
    native: 'from main | where level = "error" | head 100',
    sql: "SELECT * FROM logs WHERE level = 'error' ORDER BY time DESC LIMIT 100",
  },
  {
    name: 'head 100 (the newest events)',
    native: 'from main | head 100',
    sql: 'SELECT * FROM logs ORDER BY time DESC LIMIT 100',
  },
];

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: response.status, body: await response.json() };
}

/** The generated events span the six hours before the load starts. */
export const LOAD_SPAN_MS = 6 * 3600_000;

/** Generates the events, posts them to the server and, with `ndjsonPath`, writes them as NDJSON (for ripgrep and DuckDB). */
export async function load(server: TestServer, options: { events: number }, ndjsonPath: string | null): Promise<{ seconds: number }> {
  const spanMs = LOAD_SPAN_MS;
  const generator = new EventGenerator(7, Date.now() - spanMs, spanMs / options.events);
  const file = ndjsonPath === null ? null : fs.openSync(ndjsonPath, 'w');
  const started = performance.now();
  let inFlight: Promise<void>[] = [];
  for (let produced = 0; produced < options.events; produced += 10_000) {
    const batch = [];
    const lines: string[] = [];
    for (let i = 0; i < Math.min(10_000, options.events - produced); i++) {
      const n = produced + i;
      const event = generator.next(n % NEEDLE_EVERY === 12345 ? NEEDLE : undefined);
      batch.push(event);
      lines.push(JSON.stringify({ time: event.time, event: event.event, host: event.host, source: event.source, ...event.fields }));
    }
    if (file !== null) fs.writeSync(file, `${lines.join('\n')}\n`);
    const body = JSON.stringify(batch);
    inFlight.push(
      (async () => {
        for (;;) {
          const response = await fetch(`${server.api}/ingest`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
          await response.text();
          if (response.status === 200) return;
          if (response.status !== 503) throw new Error(`ingest answered ${response.status}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })(),
    );
    if (inFlight.length >= 2) {
      await inFlight[0];
      inFlight = inFlight.slice(1);
    }
  }
  await Promise.all(inFlight);
  if (file !== null) fs.closeSync(file);
  return { seconds: (performance.now() - started) / 1000 };
}

/**
 * Waits until the write buffer is empty, the segment count holds, and the server has been idle for
 * longer than a compaction interval (30 s by default): compaction wakes on that interval, and a
 * merge at the compaction zstd level runs for many seconds, so queries timed next to it would
 * measure the merge too.
 */
export async function waitSettled(server: TestServer): Promise<void> {
  const windowMs = 10_000;
  const quietWindowsNeeded = 4;
  let lastSegments = -1;
  let quietWindows = 0;
  while (quietWindows < quietWindowsNeeded) {
    const cpuBefore = processCpuSeconds(server.process.pid);
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const busyCores = (processCpuSeconds(server.process.pid) - cpuBefore) / (windowMs / 1000);
    const stats = (await request(`${server.api}/stats`)).body.data;
    const quiet = stats.buffered_events === 0 && stats.segment_count === lastSegments && busyCores < 0.1;
    quietWindows = quiet ? quietWindows + 1 : 0;
    lastSegments = stats.segment_count;
  }
}

/**
 * One timed query with a fresh result cache (we measure the engine, not the cache): ms and the
 * answer's row count. `body` adds to the request (e.g. an explicit time range, so that answers
 * timed minutes apart agree); `cached: false`: the server keeps no result cache, none to clear.
 */
export async function timeNativeOnce(
  server: TestServer,
  query: BenchQuery,
  body: Record<string, unknown> = {},
  { cached = true }: { cached?: boolean } = {},
): Promise<{ ms: number; rows: number }> {
  if (cached) await request(`${server.api}/cache`, { method: 'DELETE' });
  const started = performance.now();
  const response = await postJson(`${server.api}/query`, { q: query.native, limit: 1000, ...body });
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${query.native}: ${JSON.stringify(response.body)}`);
  return { ms, rows: response.body.data.type === 'aggregate' ? response.body.data.rows.length : response.body.data.events.length };
}

export async function timeNative(
  server: TestServer,
  query: BenchQuery,
  runs: number,
  body: Record<string, unknown> = {},
): Promise<{ median: number; first: number; result: unknown }> {
  const times: number[] = [];
  let result: unknown = null;
  let first = NaN;
  // One unmeasured run first (both engines get one): the JIT compiles a query's hot loops on
  // their first use, which a server pays once, not per query. It also fills the query workers'
  // block cache (buffer_manager.block_cache_max_bytes); its time is printed apart.
  for (let run = -1; run < runs; run++) {
    const { ms, rows } = await timeNativeOnce(server, query, body);
    if (run >= 0) times.push(ms);
    else first = ms;
    result = rows;
  }
  return { median: median(times), first, result };
}

/** Installs DuckDB's Node API into .bench/duckdb (never into the project's lockfile). */
function duckdbModule(): string {
  const dir = path.join(REPO_ROOT, '.bench', 'duckdb');
  const entry = path.join(dir, 'node_modules', '@duckdb', 'node-api');
  if (!fs.existsSync(entry)) {
    fs.mkdirSync(dir, { recursive: true });
    if (!fs.existsSync(path.join(dir, 'package.json')))
      fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"trawl-bench-duckdb","private":true}\n');
    execFileSync('npm', ['install', '--no-save', '--prefix', dir, '@duckdb/node-api'], { stdio: 'inherit' });
  }
  return entry;
}

async function timeDuckdb(ndjsonPath: string, runs: number): Promise<Map<string, number> | string> {
  try {
    const duckdb = require(duckdbModule()) as { DuckDBInstance: { create(path: string): Promise<any> } };
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run(`CREATE TABLE logs AS SELECT * FROM read_json_auto('${ndjsonPath}', format='newline_delimited')`);
    const out = new Map<string, number>();
    for (const query of QUERIES) {
      const times: number[] = [];
      for (let run = -1; run < runs; run++) {
        const started = performance.now();
        await connection.runAndReadAll(query.sql);
        if (run >= 0) times.push(performance.now() - started);
      }
      out.set(query.name, median(times));
    }
    return out;
  } catch (error) {
    return `DuckDB unavailable: ${(error as Error).message}`;
  }
}

function timeRipgrep(ndjsonPath: string, runs: number): number | string {
  if (spawnSync('rg', ['--version']).status !== 0) return 'ripgrep not installed (apt-get install ripgrep)';
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    spawnSync('rg', ['-c', NEEDLE, ndjsonPath]);
    times.push(performance.now() - started);
  }
  return median(times);
}

/**
 * p99 latency of a simple query while ingest runs at `rate` events/s in the background. The
 * achieved rate is acknowledged events over the time their batches took to go out (from the
 * first send to the last, plus one batch interval): a server that keeps up with the schedule
 * shows the target rate. `lagMs` is how far behind its schedule the last batch went out.
 */
async function latencyUnderIngest(
  server: TestServer,
  rate: number,
  seconds: number,
): Promise<{ p99: number; achieved: number; lagMs: number }> {
  const generator = new EventGenerator(99, Date.now() - 60_000, 1);
  const batchSize = Math.max(1000, Math.round(rate / 10));
  // Live traffic: the events carry no time of their own, so each is stamped with its receive
  // time, as a shipper tailing files in real time would produce (re-sent bodies with fixed
  // times would pile duplicates into one old minute instead).
  const live = (): Record<string, unknown> => {
    const { time: _time, ...event } = generator.next();
    return event;
  };
  const bodies = Array.from({ length: 20 }, () => JSON.stringify(Array.from({ length: batchSize }, live)));
  let sent = 0;
  let scheduled = 0;
  let stop = false;
  let lastSend = 0;
  let lagMs = 0;
  const started = performance.now();
  // Two requests in flight (as in the ingest benchmark); batch k goes out at k / (rate / batch) s.
  const sender = async (): Promise<void> => {
    while (!stop) {
      const due = started + (scheduled / rate) * 1000;
      const body = bodies[(scheduled / batchSize) % bodies.length];
      scheduled += batchSize;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      lastSend = performance.now();
      lagMs = Math.max(0, lastSend - due);
      const response = await fetch(`${server.api}/ingest`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      await response.text();
      if (response.status === 200) sent += batchSize;
    }
  };
  const ingest = Promise.all([sender(), sender()]);
  const latencies: number[] = [];
  while (performance.now() - started < seconds * 1000) {
    const t = performance.now();
    await postJson(`${server.api}/query`, { q: 'from main | where level = "error" | head 10', from: '-5m' });
    latencies.push(performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  stop = true;
  await ingest;
  return { p99: percentile(latencies, 0.99), achieved: sent / ((lastSend - started) / 1000 + batchSize / rate), lagMs };
}

export async function runQueryBench(options: QueryBenchOptions): Promise<void> {
  const dir = path.join(REPO_ROOT, '.bench');
  fs.mkdirSync(dir, { recursive: true });
  const ndjsonPath = path.join(dir, 'events.ndjson');
  const server = await TestServer.start({ set: { 'storage.compaction_interval': '5s' } });
  try {
    console.log(`loading ${options.events} events ...`);
    const loaded = await load(server, options, ndjsonPath);
    console.log(
      `loaded in ${loaded.seconds.toFixed(0)} s (${(options.events / loaded.seconds).toFixed(0)} events/s); waiting for flush and compaction`,
    );
    await waitSettled(server);
    const native = new Map<string, { median: number; first: number; result: unknown }>();
    for (const query of QUERIES) native.set(query.name, await timeNative(server, query, options.runs));
    // The latency phase runs before DuckDB and ripgrep load this process and the machine.
    let latency: string;
    try {
      const underLoad = await latencyUnderIngest(server, options.ingestRate, 30);
      latency = `simple query p99 while ingesting: ${underLoad.p99.toFixed(1)} ms at ${underLoad.achieved.toFixed(0)} events/s achieved (target ${options.ingestRate}; the last batch went out ${underLoad.lagMs.toFixed(0)} ms behind schedule)`;
    } catch (error) {
      latency = `latency under ingest failed: ${String(error)}\nserver log (tail):\n${server.log.slice(-3000)}`;
    }
    const duck = await timeDuckdb(ndjsonPath, options.runs);
    const rg = timeRipgrep(ndjsonPath, options.runs);
    console.log(`\nquery benchmark: ${options.events} events, median of ${options.runs} runs (ms)`);
    console.log('| query | trawl | DuckDB | ratio | trawl first run (unmeasured) |');
    console.log('|---|---:|---:|---:|---:|');
    for (const query of QUERIES) {
      const ours = native.get(query.name)?.median ?? NaN;
      const first = native.get(query.name)?.first ?? NaN;
      const theirs = typeof duck === 'string' ? NaN : (duck.get(query.name) ?? NaN);
      console.log(
        `| ${query.name} | ${ours.toFixed(1)} | ${Number.isNaN(theirs) ? '-' : theirs.toFixed(1)} | ${Number.isNaN(theirs) ? '-' : (ours / theirs).toFixed(2)} | ${first.toFixed(1)} |`,
      );
    }
    if (typeof duck === 'string') console.log(duck);
    const needle = native.get(QUERIES[1].name)?.median ?? NaN;
    console.log(
      `| ripgrep -c ${NEEDLE} (raw NDJSON) | ${typeof rg === 'string' ? rg : rg.toFixed(1)} | | ${typeof rg === 'string' ? '-' : `trawl ${(rg / needle).toFixed(1)}x faster`} |`,
    );
    console.log(`\n${latency}`);
  } finally {
    await server.stop();
  }
  if (options.baseline !== null) await compareBuilds(server.dataDir, path.resolve(options.baseline), options.runs);
}

/**
 * The queries on copies of one data dir, served by this build and by `baselineDist` in turn for
 * COMPARE_ROUNDS rounds, each build first in every other round; prints the median of each build's
 * per-round medians and their ratio.
 * Compaction is held off, so both read the same segments.
 */
async function compareBuilds(dataDir: string, baselineDist: string, runs: number): Promise<void> {
  const builds = [
    { name: 'this build', cli: path.join(REPO_ROOT, 'dist', 'node', 'cli.js') },
    { name: `baseline ${baselineDist}`, cli: path.join(baselineDist, 'node', 'cli.js') },
  ].map((build, i) => {
    const copy = `${dataDir}-compare-${i}`;
    fs.cpSync(dataDir, copy, { recursive: true });
    return { ...build, dataDir: copy, medians: new Map<string, number[]>() };
  });
  try {
    for (let round = 0; round < COMPARE_ROUNDS; round++) {
      // Each build goes first in half the rounds: the one that runs first in a round was measured
      // up to a fifth slower on this machine, whatever the build.
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        const server = await TestServer.start({ cli: build.cli, dataDir: build.dataDir, set: { 'storage.compaction_interval': '1h' } });
        try {
          for (const query of QUERIES) {
            const timed = await timeNative(server, query, runs);
            build.medians.set(query.name, [...(build.medians.get(query.name) ?? []), timed.median]);
          }
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    for (const build of builds) fs.rmSync(build.dataDir, { recursive: true, force: true });
  }
  const [ours, theirs] = builds;
  console.log(
    `\nthis build against ${theirs.name}: the same data, ${COMPARE_ROUNDS} alternating rounds, median of the rounds' medians (ms)`,
  );
  console.log('| query | this build | baseline | ratio |');
  console.log('|---|---:|---:|---:|');
  for (const query of QUERIES) {
    const a = median(ours.medians.get(query.name) ?? []);
    const b = median(theirs.medians.get(query.name) ?? []);
    console.log(`| ${query.name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(2)} |`);
  }
}

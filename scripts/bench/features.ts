/**
 * `npm run bench -- features [--events N] [--runs N] [--no-tail]`
 *
 * Loads N generated events (default 10,000,000) into a real server, then times the endpoints
 * that must not read events against a query that computes the same answer by reading them, in
 * the same run (medians of `runs`, each with an empty result cache):
 * - `GET /histogram` over the whole load against `stats count(_time) by bin(_time, <its interval>)`
 *   (`count(_time)` reads every row's `_time`; `count()` would take the header shortcut too).
 * - `GET /fields` against one `stats` query of every field's count, and the min, max, avg, p50 and
 *   p99 of the numeric ones (the descriptors but the top values, which would take a query per field).
 * Then, unless `--no-tail`, the live tail bench (`npm run bench -- tail`: latency from ingest
 * acknowledgement to SSE delivery at 50,000 events/s, on one node and on three).
 */
import { request, TestServer } from '../../test/helpers/server';
import { LOAD_SPAN_MS, load, median, waitSettled } from './query';
import { runTailBench } from './tail';

export interface FeaturesBenchOptions {
  events: number;
  runs: number;
  /** Also run the live tail bench (tail.ts) with its defaults. */
  tail: boolean;
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

/** Median ms of `runs` calls after one unmeasured call (the JIT's first use), each after a cache clear; and the last answer. */
async function medianOf<T>(server: TestServer, runs: number, call: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const times: number[] = [];
  let value: T | null = null;
  for (let run = -1; run < runs; run++) {
    await request(`${server.api}/cache`, { method: 'DELETE' });
    const result = await timed(call);
    if (run >= 0) times.push(result.ms);
    value = result.value;
  }
  return { ms: median(times), value: value as T };
}

async function getJson(url: string): Promise<any> {
  const response = await fetch(url);
  const body = await response.json();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

async function postQuery(server: TestServer, body: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${server.api}/query`, {
    method: 'POST',
    body: JSON.stringify({ limit: 10_000, ...body }),
    headers: { 'content-type': 'application/json' },
  });
  const answer = await response.json();
  if (response.status !== 200) throw new Error(`${String(body.q)}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

interface Row {
  measure: string;
  endpointMs: number;
  queryMs: number;
  agrees: boolean;
}

async function histogramRow(server: TestServer, runs: number, fromIso: string, toIso: string): Promise<Row> {
  const params = new URLSearchParams({ from: fromIso, to: toIso });
  const histogram = await medianOf(server, runs, () => getJson(`${server.api}/histogram?${params}`));
  const interval = histogram.value.data.interval as string;
  const q = `from * | stats count(_time) by bin(_time, ${interval})`;
  const query = await medianOf(server, runs, () => postQuery(server, { q, from: fromIso, to: toIso }));
  const byQuery = new Map<string, number>(query.value.data.rows.map(([time, count]: [string, number]) => [time, count]));
  const buckets = histogram.value.data.buckets as { time: string; count: number }[];
  const agrees =
    buckets.every((bucket) => (byQuery.get(bucket.time) ?? 0) === bucket.count) &&
    histogram.value.data.total === [...byQuery.values()].reduce((a, b) => a + b, 0);
  return { measure: `/histogram (${buckets.length} buckets of ${interval})`, endpointMs: histogram.ms, queryMs: query.ms, agrees };
}

/** Whether two numbers agree within `relative` of the larger. */
const near = (a: number, b: number, relative: number): boolean => Math.abs(a - b) <= relative * Math.max(Math.abs(a), Math.abs(b));

async function fieldsRow(server: TestServer, runs: number, fromIso: string, toIso: string): Promise<Row> {
  const params = new URLSearchParams({ from: fromIso, to: toIso });
  const fields = await medianOf(server, runs, () => getJson(`${server.api}/fields?${params}`));
  const described = (fields.value.data.fields as Record<string, any>[]).filter((field) => field.name !== '_time');
  const numeric = (field: Record<string, any>): boolean => field.type === 'integer' || field.type === 'float';
  const columns = described.flatMap((field, f) => {
    const name = `\`${field.name as string}\``;
    const count = [`count(${name}) as c${f}`];
    if (!numeric(field)) return count;
    return [...count, ...['min', 'max', 'avg', 'p50', 'p99'].map((aggregate) => `${aggregate}(${name}) as ${aggregate}${f}`)];
  });
  const q = `from * | stats ${columns.join(', ')}`;
  const query = await medianOf(server, runs, () => postQuery(server, { q, from: fromIso, to: toIso }));
  const names = query.value.data.columns as string[];
  const row = query.value.data.rows[0] as unknown[];
  const cell = (name: string): number => Number(row[names.indexOf(name)]);
  // Quantiles: two sketches (0.8% here, 0.5% the query's), so within their sum.
  const agrees = described.every(
    (field, f) =>
      cell(`c${f}`) === field.count &&
      (!numeric(field) ||
        (cell(`min${f}`) === field.min &&
          cell(`max${f}`) === field.max &&
          near(cell(`avg${f}`), field.avg, 1e-9) &&
          near(cell(`p50${f}`), field.p50, 0.014) &&
          near(cell(`p99${f}`), field.p99, 0.014))),
  );
  return { measure: `/fields (${described.length} fields)`, endpointMs: fields.ms, queryMs: query.ms, agrees };
}

export async function runFeaturesBench(options: FeaturesBenchOptions): Promise<void> {
  const server = await TestServer.start({ set: { 'storage.compaction_interval': '5s' } });
  try {
    console.log(`loading ${options.events} events ...`);
    const loadedAt = Date.now();
    const loaded = await load(server, options, null);
    console.log(`loaded in ${loaded.seconds.toFixed(0)} s; waiting for flush and compaction`);
    await waitSettled(server);
    const fromIso = new Date(loadedAt - LOAD_SPAN_MS - 60_000).toISOString();
    const toIso = new Date().toISOString();
    const rows = [await histogramRow(server, options.runs, fromIso, toIso), await fieldsRow(server, options.runs, fromIso, toIso)];
    console.log(`\nfeatures benchmark: ${options.events} events on one node, median of ${options.runs} runs (ms), empty result cache`);
    console.log('| endpoint | endpoint ms | the same answer by a stats query, ms | ratio | same answer |');
    console.log('|---|---:|---:|---:|---|');
    for (const row of rows) {
      console.log(
        `| ${row.measure} | ${row.endpointMs.toFixed(1)} | ${row.queryMs.toFixed(1)} | ${(row.endpointMs / row.queryMs).toFixed(3)} | ${row.agrees ? 'yes' : 'NO'} |`,
      );
    }
  } finally {
    await server.stop();
  }
  // The live tail's latency needs servers of its own (one node, then three) under a paced ingest.
  if (options.tail) await runTailBench({ nodes: [1, 3], ingestRate: 50_000, seconds: 20, batch: 1_000 });
}

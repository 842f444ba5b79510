/**
 * Every result path answers the same rows: random datasets (some rows compacted, some only
 * flushed, some still in the write buffer, over several time buckets and indexes) and random
 * queries (`where`, `search`, `keep`, `sort`, `head`, with and without a time range). For each
 * query the test computes the answer itself from the generated events, then checks the
 * synchronous answer, paging through `offset`, `POST /query/stream`, an async job's result and the
 * job SSE `complete` payload against it.
 *
 * TRAWL_TEST_SEED=<n> replays one run's datasets and queries.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import http from 'http';
import { prng } from '../../scripts/bench/generate';
import { patchConfig, waitUntil } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';
import { readJobStream } from '../helpers/sse';

const INDEXES = ['main', 'web', 'app'] as const;
const HOSTS = ['h1', 'h2', 'h3', 'h4'];
const LEVELS = ['info', 'warn', 'error'];
const STATUSES = [200, 404, 500, 503];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
const HOUR_MS = 3_600_000;

interface GeneratedEvent {
  uid: number;
  timeMs: number;
  index: (typeof INDEXES)[number];
  host: string | null;
  status: number | null;
  level: string;
  ms: number;
  words: string[];
  raw: string;
}

/**
 * `count` events with distinct millisecond times over the `spanHours` before `endMs` (so the
 * newest-first order has no ties), uids 0..count-1 in a random order of time.
 */
function generateEvents(seed: number, count: number, endMs: number, spanHours: number, mainShare: number): GeneratedEvent[] {
  const next = prng(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  const pickIndex = (): GeneratedEvent['index'] => (next() < mainShare ? 'main' : pick(INDEXES));
  const times = new Set<number>();
  while (times.size < count) times.add(endMs - 1 - Math.floor(next() * spanHours * HOUR_MS));
  return [...times].map((timeMs, uid) => {
    const words = Array.from({ length: 3 }, () => pick(WORDS));
    // Mixed case: search is case-insensitive.
    const shown = words.map((word) => (next() < 0.3 ? word.toUpperCase() : word));
    return {
      uid,
      timeMs,
      index: pickIndex(),
      host: next() < 0.1 ? null : pick(HOSTS),
      status: next() < 0.15 ? null : pick(STATUSES),
      level: pick(LEVELS),
      ms: Math.round(next() * 100_000) / 100,
      words,
      raw: `uid=${uid} ${shown.join(' ')} end`,
    };
  });
}

function toIngest(event: GeneratedEvent): Record<string, unknown> {
  const fields: Record<string, unknown> = { uid: event.uid, level: event.level, ms: event.ms };
  if (event.status !== null) fields.status = event.status;
  return {
    event: event.raw,
    time: event.timeMs / 1000,
    index: event.index,
    source: 'gen',
    ...(event.host === null ? {} : { host: event.host }),
    fields,
  };
}

// ---- the query language subset and its oracle ----

interface Part<T> {
  text: string;
  test: T;
}

const FROMS: Part<(index: string) => boolean>[] = [
  { text: 'main', test: (index) => index === 'main' },
  { text: 'web', test: (index) => index === 'web' },
  { text: 'main, app', test: (index) => index === 'main' || index === 'app' },
  { text: '*', test: () => true },
  { text: 'w*', test: (index) => index.startsWith('w') },
];

/** `where` predicates; a null field makes a comparison null, which counts as false. */
const WHERES: Part<(event: GeneratedEvent) => boolean>[] = [
  { text: 'status >= 500', test: (e) => e.status !== null && e.status >= 500 },
  { text: 'status = 404', test: (e) => e.status === 404 },
  { text: 'host = "h2"', test: (e) => e.host === 'h2' },
  { text: 'host != "h1"', test: (e) => e.host !== null && e.host !== 'h1' },
  { text: 'level = "error"', test: (e) => e.level === 'error' },
  { text: 'ms < 250.5', test: (e) => e.ms < 250.5 },
  { text: 'status >= 500 and host = "h3"', test: (e) => e.status !== null && e.status >= 500 && e.host === 'h3' },
  { text: 'level = "warn" or status = 200', test: (e) => e.level === 'warn' || e.status === 200 },
  { text: 'status is null', test: (e) => e.status === null },
  { text: 'uid % 7 = 3', test: (e) => e.uid % 7 === 3 },
];

const has = (e: GeneratedEvent, word: string): boolean => e.words.includes(word);
const SEARCHES: Part<(event: GeneratedEvent) => boolean>[] = [
  { text: 'alpha', test: (e) => has(e, 'alpha') },
  { text: 'GAMMA', test: (e) => has(e, 'gamma') },
  { text: 'beta delta', test: (e) => has(e, 'beta') && has(e, 'delta') },
  { text: 'alpha OR epsilon', test: (e) => has(e, 'alpha') || has(e, 'epsilon') },
  { text: 'NOT beta', test: (e) => !has(e, 'beta') },
  { text: '"alpha beta"', test: (e) => e.words.some((word, i) => word === 'alpha' && e.words[i + 1] === 'beta') },
  { text: '"beta end"', test: (e) => e.words[2] === 'beta' },
];

const KEEPS: Part<(event: GeneratedEvent) => Record<string, unknown>>[] = [
  { text: 'uid, host, status', test: (e) => ({ uid: e.uid, host: e.host, status: e.status }) },
  { text: 'level, uid', test: (e) => ({ level: e.level, uid: e.uid }) },
];

/** Orders two values as `sort` does for these fields: nulls last in both directions. */
function byKey<T extends number | string>(key: (e: GeneratedEvent) => T | null, direction: 'asc' | 'desc') {
  return (a: GeneratedEvent, b: GeneratedEvent): number => {
    const x = key(a);
    const y = key(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    const order = x < y ? -1 : x > y ? 1 : 0;
    return direction === 'desc' ? -order : order;
  };
}

/** `sort` stages: ties keep the default order, newest first. */
const SORTS: Part<(a: GeneratedEvent, b: GeneratedEvent) => number>[] = [
  { text: 'ms desc', test: byKey((e) => e.ms, 'desc') },
  { text: 'host', test: byKey((e) => e.host, 'asc') },
  { text: 'status desc, host', test: (a, b) => byKey((e) => e.status, 'desc')(a, b) || byKey((e) => e.host, 'asc')(a, b) },
];

interface GeneratedQuery {
  text: string;
  fromMs: number | null;
  toMs: number | null;
  /** The expected events: uids newest first, and the kept fields when the query has a `keep`. */
  expect(events: readonly GeneratedEvent[]): { uids: number[]; kept: Record<string, unknown>[] | null };
}

function queryArbitrary(startMs: number, endMs: number): fc.Arbitrary<GeneratedQuery> {
  const optional = <T>(values: readonly T[]) => fc.option(fc.constantFrom(...values), { nil: null });
  const timeRange = fc.option(
    fc
      .tuple(fc.integer({ min: startMs, max: endMs }), fc.integer({ min: startMs, max: endMs }))
      .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
    { nil: null },
  );
  return fc
    .record({
      from: fc.constantFrom(...FROMS),
      search: optional(SEARCHES),
      where: optional(WHERES),
      keep: optional(KEEPS),
      sort: optional(SORTS),
      head: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }),
      range: timeRange,
    })
    .map(({ from, search, where, keep, sort, head, range }) => {
      const stages = [`from ${from.text}`];
      if (search !== null) stages.push(`search ${search.text}`);
      if (where !== null) stages.push(`where ${where.text}`);
      // A sort sits before `keep`, which may drop its keys.
      if (sort !== null) stages.push(`sort ${sort.text}`);
      if (keep !== null) stages.push(`keep ${keep.text}`);
      if (head !== null) stages.push(`head ${head}`);
      const text = stages.join(' | ');
      return {
        text,
        fromMs: range?.[0] ?? null,
        toMs: range?.[1] ?? null,
        // How fast-check prints a counterexample.
        [fc.toStringMethod]: () => `${text} [${range === null ? 'all time' : range.map((ms) => new Date(ms).toISOString()).join(', ')})`,
        expect(events) {
          let matched = events.filter(
            (e) =>
              from.test(e.index) &&
              (range === null || (e.timeMs >= range[0] && e.timeMs < range[1])) &&
              (search === null || search.test(e)) &&
              (where === null || where.test(e)),
          );
          matched = [...matched].sort((a, b) => b.timeMs - a.timeMs);
          if (sort !== null) matched.sort(sort.test);
          if (head !== null) matched = matched.slice(0, head);
          return { uids: matched.map((e) => e.uid), kept: keep === null ? null : matched.map((e) => keep.test(e)) };
        },
      };
    });
}

// ---- the result paths ----

type Row = Record<string, unknown>;

function body(query: GeneratedQuery, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { q: query.text, ...extra };
  if (query.fromMs !== null) out.from = new Date(query.fromMs).toISOString();
  if (query.toMs !== null) out.to = new Date(query.toMs).toISOString();
  return out;
}

async function syncRows(server: TestServer, query: GeneratedQuery): Promise<{ events: Row[]; total: number }> {
  const answer = await postJson(`${server.api}/query`, body(query, { limit: RESULT_LIMIT }));
  assert.equal(answer.status, 200, `sync ${query.text}: ${answer.text.slice(0, 300)}`);
  assert.equal(answer.body.data.has_more, false, `sync ${query.text}: has_more`);
  return { events: answer.body.data.events, total: answer.body.data.total };
}

async function pagedRows(server: TestServer, query: GeneratedQuery, pageSize: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const answer = await postJson(`${server.api}/query`, body(query, { limit: pageSize, offset }));
    assert.equal(answer.status, 200, `page at ${offset} of ${query.text}: ${answer.text.slice(0, 300)}`);
    rows.push(...answer.body.data.events);
    if (!answer.body.data.has_more) return rows;
    assert.equal(answer.body.data.events.length, pageSize, `a page with has_more is full (${query.text} at ${offset})`);
  }
}

function streamRows(server: TestServer, query: GeneratedQuery): Promise<{ events: Row[]; meta: Row }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body(query, {}));
    const req = http.request(
      `${server.api}/query/stream`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          try {
            assert.equal(response.statusCode, 200, `stream ${query.text}: ${text.slice(0, 300)}`);
            const lines = text
              .split('\n')
              .filter((line) => line !== '')
              .map((line) => JSON.parse(line) as Row);
            const last = lines.pop();
            assert.ok(last !== undefined && '__meta' in last, `stream ${query.text} ends with __meta: ${text.slice(-300)}`);
            resolve({ events: lines, meta: last.__meta as Row });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** An async job: its SSE stream, opened while it may still run, and then its final state. */
async function jobRows(server: TestServer, query: GeneratedQuery): Promise<{ sse: Row[]; result: Row[] }> {
  const handle = await postJson(`${server.api}/query`, body(query, { limit: RESULT_LIMIT, wait: 0 }));
  assert.equal(handle.status, 202, `job ${query.text}: ${handle.text.slice(0, 300)}`);
  const id = handle.body.data.job_id as string;
  const events = await readJobStream(`${server.api}/query/jobs/${id}/stream`);
  const complete = events.filter((event) => event.event === 'complete');
  assert.equal(complete.length, 1, `one complete event for ${query.text}: ${JSON.stringify(events.map((e) => e.event))}`);
  const job = await request(`${server.api}/query/jobs/${id}`);
  assert.equal(job.body.data.status, 'done', `job ${query.text}: ${job.text.slice(0, 300)}`);
  return { sse: complete[0].data.data.events, result: job.body.data.results.events };
}

function uidsOf(rows: Row[]): unknown[] {
  return rows.map((row) => row.uid);
}

async function checkQuery(server: TestServer, events: readonly GeneratedEvent[], query: GeneratedQuery): Promise<void> {
  const expected = query.expect(events);
  const context = `${query.text} from=${query.fromMs} to=${query.toMs}`;
  const sync = await syncRows(server, query);
  assert.deepEqual(uidsOf(sync.events), expected.uids, `sync rows of ${context}`);
  if (expected.kept !== null) assert.deepEqual(sync.events, expected.kept, `kept fields of ${context}`);
  else for (const row of sync.events) assert.equal(row.source, 'gen', `an event row of ${context}: ${JSON.stringify(row)}`);
  assert.equal(sync.total, expected.uids.length, `total of ${context}`);

  const pageSize = Math.max(1, Math.ceil(expected.uids.length / 3));
  assert.deepEqual(await pagedRows(server, query, pageSize), sync.events, `paging by ${pageSize} through ${context}`);

  const stream = await streamRows(server, query);
  assert.deepEqual(stream.events, sync.events, `/query/stream rows of ${context}`);
  assert.equal(stream.meta.total, expected.uids.length, `/query/stream __meta.total of ${context}`);

  const job = await jobRows(server, query);
  assert.deepEqual(job.result, sync.events, `async job result of ${context}`);
  assert.deepEqual(job.sse, sync.events, `job SSE complete payload of ${context}`);
}

// ---- loading a dataset into the three storage states ----

async function storage(server: TestServer): Promise<{ buffered: number; segments: number; compacting: boolean }> {
  const stats = (await request(`${server.api}/stats`)).body.data;
  const metrics = (await request(`${server.api}/metrics`)).body.data.storage;
  return {
    buffered: stats.buffered_events,
    segments: stats.segment_count,
    compacting: metrics.compaction_running || metrics.compaction_pending !== 0,
  };
}

async function ingest(server: TestServer, events: readonly GeneratedEvent[]): Promise<void> {
  for (let at = 0; at < events.length; at += 5000) {
    const batch = events.slice(at, at + 5000);
    const answer = await postJson(`${server.api}/ingest`, batch.map(toIngest));
    assert.deepEqual(answer.body, { data: { accepted: batch.length, failed: 0 } }, answer.text.slice(0, 300));
  }
}

/**
 * Ingests the events in three parts: the first in three flushes, then compacted (merges and lone
 * rewrites); the second flushed only; the third left in the write buffer. The parts' times
 * interleave, so every query meets all three states.
 */
async function load(server: TestServer, events: readonly GeneratedEvent[]): Promise<void> {
  const third = Math.floor(events.length / 3);
  const compacted = events.slice(0, third);
  const flushed = events.slice(third, 2 * third);
  const buffered = events.slice(2 * third);
  const flushedAll = async (what: string) => waitUntil(async () => (await storage(server)).buffered === 0, 30_000, what);

  for (let part = 0; part < 3; part++) {
    await ingest(
      server,
      compacted.filter((_, i) => i % 3 === part),
    );
    await flushedAll(`flush ${part + 1} of the compacted part`);
  }
  const compactions = async (): Promise<number> => (await request(`${server.api}/compaction/history`)).body.data.total;
  assert.equal(await compactions(), 0, 'no compaction before it is turned on');
  assert.equal((await patchConfig(server, { storage: { compaction_interval: '200ms' } })).status, 200);
  await waitUntil(async () => (await compactions()) > 0 && !(await storage(server)).compacting, 60_000, 'compaction');
  assert.equal((await patchConfig(server, { storage: { compaction_interval: '1h' } })).status, 200);

  await ingest(server, flushed);
  await flushedAll('the flushed part');
  assert.equal((await patchConfig(server, { storage: { flush_interval: '1h' } })).status, 200);
  await ingest(server, buffered);
  assert.equal((await storage(server)).buffered, buffered.length, 'the last part stays in the write buffer');
}

const baseSeed = process.env.TRAWL_TEST_SEED !== undefined ? Number(process.env.TRAWL_TEST_SEED) : Date.now() % 1_000_000;

/** Datasets: small ones over many buckets, and one with more rows than a segment row block in a bucket. */
const DATASETS = [
  { name: 'small, 30 hours', count: 1800, spanHours: 30, mainShare: 0, queries: 40 },
  { name: 'small, 3 hours', count: 1200, spanHours: 3, mainShare: 0, queries: 30 },
  // The compacted third puts over 16,384 rows (a segment row block) in some bucket of `main`.
  { name: 'a bucket with several row blocks', count: 120_000, spanHours: 1, mainShare: 0.9, queries: 12 },
];

/** Above every dataset's size, so that one synchronous answer holds every row. */
const RESULT_LIMIT = 200_000;

describe(`every result path agrees with the test's own answer (seed ${baseSeed})`, function () {
  this.timeout(600_000);

  DATASETS.forEach((dataset, d) => {
    describe(dataset.name, () => {
      const seed = baseSeed + d;
      const endMs = Date.now() - 60_000;
      const events = generateEvents(seed, dataset.count, endMs, dataset.spanHours, dataset.mainShare);
      let server: TestServer;

      before(async () => {
        server = await TestServer.start({
          set: { 'storage.flush_interval': '100ms', 'storage.compaction_interval': '1h', 'query.max_result_limit': RESULT_LIMIT },
        });
        await load(server, events);
      });
      after(async () => {
        assert.equal(await server.stop(), 0);
      });

      it(`${dataset.queries} random queries (fast-check seed ${seed})`, async () => {
        const startMs = endMs - dataset.spanHours * HOUR_MS;
        await fc.assert(
          fc.asyncProperty(queryArbitrary(startMs, endMs), (query) => checkQuery(server, events, query)),
          { numRuns: dataset.queries, seed, endOnFailure: true },
        );
      });

      it('the newest-first stream of everything, with and without a range', async () => {
        const all: GeneratedQuery = {
          text: 'from *',
          fromMs: null,
          toMs: null,
          expect: (list) => ({ uids: [...list].sort((a, b) => b.timeMs - a.timeMs).map((e) => e.uid), kept: null }),
        };
        await checkQuery(server, events, all);
      });
    });
  });
});

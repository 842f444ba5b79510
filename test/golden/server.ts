/**
 * One real server for the whole golden run: started by the first file that asks for it, loaded with
 * the dataset through `POST /api/v1/ingest`, flushed into segments, and stopped by a root `after`
 * hook (registered once, when mocha loads the first golden file). Plus query and comparison helpers.
 */
import { strict as assert } from 'assert';
import { dispose, patchConfig, waitUntil } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';
import { EVENTS, ingestBody, RANGE, type Row, type V } from './dataset';

export interface Golden {
  server: TestServer;
}

let started: Promise<Golden> | null = null;

async function start(): Promise<Golden> {
  const server = await TestServer.start({
    set: {
      // The dataset has fixed dates (March 2026): keep them.
      retention: '3650d',
      // Many small segments, so that queries merge partials from many units and workers.
      'storage.segment_max_events': 200,
      'storage.flush_interval': '200ms',
    },
  });
  try {
    // Several requests in an order that is not time order: segments overlap in time. The first
    // is compacted before the others arrive, so the queries read both kinds of segment: flushed
    // ones (`_raw` whole) and compacted ones (`_raw` with field references, raw-refs.ts).
    const chunks = [EVENTS.slice(1200), EVENTS.slice(0, 600), EVENTS.slice(600, 1200)];
    for (const [i, chunk] of chunks.entries()) {
      const answer = await postJson(`${server.api}/ingest`, ingestBody(chunk));
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body.data, { accepted: chunk.length, failed: 0 });
      if (i === 0) await compactAll(server, chunk.length);
    }
    await flushed(server, EVENTS.length);
  } catch (error) {
    await dispose(server, true);
    throw error;
  }
  return { server };
}

/** Waits until the write buffer is empty and `total` events are stored. */
async function flushed(server: TestServer, total: number): Promise<void> {
  await waitUntil(
    async () => {
      const stats = (await request(`${server.api}/stats`)).body.data;
      return stats.buffered_events === 0 && stats.total_events === total;
    },
    30_000,
    `${total} events flushed`,
  );
}

/** Flushes, then lets compaction rewrite every stored segment (the dataset's buckets are all closed), then stops it. */
async function compactAll(server: TestServer, total: number): Promise<void> {
  await flushed(server, total);
  const segments = (await request(`${server.api}/stats`)).body.data.segment_count as number;
  assert.equal((await patchConfig(server, { storage: { compaction_interval: '100ms' } })).status, 200);
  await waitUntil(
    async () => {
      const history = (await request(`${server.api}/compaction/history`)).body.data;
      return (history.compactions as { inputs: unknown[] }[]).reduce((sum, manifest) => sum + manifest.inputs.length, 0) >= segments;
    },
    30_000,
    `compaction of all ${segments} segments`,
  );
  assert.equal((await patchConfig(server, { storage: { compaction_interval: '1h' } })).status, 200);
}

/** The shared golden server (started once per mocha run). */
export function golden(): Promise<Golden> {
  started ??= start();
  return started;
}

// Root hook: mocha's `after` at module load time is the root suite's.
after(async function () {
  this.timeout(60_000);
  if (started === null) return;
  const g = await started.catch(() => null);
  if (g === null) return;
  const code = await g.server.stop();
  await dispose(g.server);
  assert.equal(code, 0, 'the server exits cleanly');
});

export interface QueryOptions {
  limit?: number;
  offset?: number;
  variables?: Record<string, unknown>;
  from?: string;
  to?: string;
}

export type Answer = Awaited<ReturnType<typeof request>>;

/** POST /api/v1/query over the golden range; returns the raw answer. */
export async function post(q: string, options: QueryOptions = {}): Promise<Answer> {
  const { server } = await golden();
  const body: Record<string, unknown> = { q, from: options.from ?? RANGE.from, to: options.to ?? RANGE.to, limit: options.limit ?? 5000 };
  if (options.offset !== undefined) body.offset = options.offset;
  if (options.variables !== undefined) body.variables = options.variables;
  return postJson(`${server.api}/query`, body);
}

function ok(answer: Answer, q: string): any {
  assert.equal(answer.status, 200, `query ${JSON.stringify(q)} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
  return answer.body.data;
}

/** An events result: the events, total and has_more. */
export async function events(q: string, options: QueryOptions = {}): Promise<{ events: Row[]; total: number; has_more: boolean }> {
  const data = ok(await post(q, options), q);
  assert.equal(data.type, 'events', `${q}: expected an events result`);
  return data;
}

/** An aggregate result: columns, rows, total_rows, has_more. */
export async function aggregate(
  q: string,
  options: QueryOptions = {},
): Promise<{ columns: string[]; rows: V[][]; total_rows: number; has_more: boolean }> {
  const data = ok(await post(q, options), q);
  assert.equal(data.type, 'aggregate', `${q}: expected an aggregate result`);
  return data;
}

/** The rows of an aggregate result as objects keyed by column. */
export async function table(q: string, options: QueryOptions = {}): Promise<Row[]> {
  const data = await aggregate(q, options);
  return data.rows.map((row) => Object.fromEntries(data.columns.map((c, i) => [c, row[i]!])));
}

/** 400 INVALID_QUERY with a parse code and a 1-based position. */
export async function invalid(q: string, code: string, options: QueryOptions = {}): Promise<any> {
  const answer = await post(q, options);
  assert.equal(answer.status, 400, `${q}: ${answer.text.slice(0, 300)}`);
  assert.equal(answer.body.error.code, 'INVALID_QUERY', q);
  assert.equal(answer.body.error.parse_code, code, `${q}: ${answer.text.slice(0, 300)}`);
  assert.ok(answer.body.error.line >= 1 && answer.body.error.column >= 1, q);
  return answer.body.error;
}

// ---------------------------------------------------------------------------------------------------
// Comparisons: exact for everything but floating point (1e-9 relative) unless a bound is given.

export function close(actual: unknown, expected: number, rel = 1e-9, context = ''): void {
  assert.equal(typeof actual, 'number', `${context}: expected a number near ${expected}, got ${JSON.stringify(actual)}`);
  const a = actual as number;
  const tolerance = Math.max(Math.abs(expected) * rel, rel === 1e-9 ? 1e-12 : 0);
  assert.ok(Math.abs(a - expected) <= tolerance, `${context}: ${a} is not within ${rel} (relative) of ${expected}`);
}

/** Values equal, numbers within 1e-9 relative. */
export function same(actual: unknown, expected: V, context = ''): void {
  if (expected === 0) expected = 0; // -0 travels as 0 in JSON
  if (typeof expected === 'number' && !Number.isInteger(expected)) close(actual, expected, 1e-9, context);
  else assert.deepStrictEqual(actual, expected, context);
}

/** Two lists of rows (arrays of cells) with `same` per cell. */
export function sameRows(actual: V[][], expected: V[][], context = ''): void {
  assert.equal(
    actual.length,
    expected.length,
    `${context}: ${actual.length} rows, expected ${expected.length}\n actual ${JSON.stringify(actual.slice(0, 5))}\n expected ${JSON.stringify(expected.slice(0, 5))}`,
  );
  for (let r = 0; r < expected.length; r++) {
    assert.equal(actual[r]!.length, expected[r]!.length, `${context}: row ${r} width`);
    for (let c = 0; c < expected[r]!.length; c++) {
      same(
        actual[r]![c],
        expected[r]![c]!,
        `${context}: row ${r} ${JSON.stringify(actual[r])} vs ${JSON.stringify(expected[r])}, column ${c}`,
      );
    }
  }
}

/** Events (as returned) keyed by `rid`. */
export function byRid(rows: Row[]): Map<string, Row> {
  const map = new Map<string, Row>();
  for (const row of rows) map.set(row.rid as string, row);
  return map;
}

/** The `rid`s of a list of events, in order. */
export function rids(rows: readonly Row[]): string[] {
  return rows.map((row) => row.rid as string);
}

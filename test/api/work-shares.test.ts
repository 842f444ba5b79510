/**
 * Search is not starved by ingest, and memory parts stay in their bounds, through the real server:
 * while a query runs (a streamed query whose client stops reading keeps it running), ingest may
 * fill only `server.ingest_share` of the write buffer's bound and is answered 503 BACKPRESSURE with
 * Retry-After beyond it; once the query ends, the same request is taken. `/status` and `/metrics`
 * report the memory parts with their bounds and the refusals.
 */
import { strict as assert } from 'assert';
import http from 'http';
import { assertError, waitUntil } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';

const MAX_BUFFERED = 100_000;
const SHARE = 0.5;
/** More than the share of the bound: queued before the query, so the share is already full when it runs. */
const BUFFERED_BEFORE = 60_000;

function batch(from: number, count: number): unknown[] {
  return Array.from({ length: count }, (_, i) => ({ event: `line ${from + i} ${'x'.repeat(120)}`, fields: { n: from + i } }));
}

describe('work shares: ingest yields to running queries; memory parts and their bounds', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await TestServer.start({
      set: {
        // Nothing leaves the write buffer during the test: its count is the test's to know.
        'storage.flush_interval': '1h',
        'storage.segment_max_events': 1_000_000,
        'ingest.max_buffered_events': MAX_BUFFERED,
        'server.ingest_share': SHARE,
        'buffer_manager.memtable_max_bytes': '32mb',
        'query.cache_max_bytes': '64kb',
      },
    });
    for (let from = 0; from < BUFFERED_BEFORE; from += 10_000) {
      const answer = await postJson(`${server.api}/ingest`, batch(from, 10_000));
      assert.equal(answer.status, 200, answer.text);
    }
  });

  after(async () => {
    await server?.kill();
  });

  const shares = async (): Promise<Record<string, number>> => (await request(`${server.api}/status`)).body.data.work_shares;

  it('while a query runs, ingest beyond its share of the write buffer is refused with Retry-After; after it, taken', async () => {
    assert.equal((await shares()).queries_running, 0);
    // Alone, the buffer (60,000 of 100,000) takes more.
    assert.equal((await postJson(`${server.api}/ingest`, batch(BUFFERED_BEFORE, 1))).status, 200);

    // A streamed query over every buffered event whose client reads nothing: it keeps running.
    const stream = http.request(`${server.api}/query/stream`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    const response = new Promise<http.IncomingMessage>((resolve) => stream.once('response', resolve));
    stream.on('error', () => undefined);
    stream.end(JSON.stringify({ q: 'from main' }));
    (await response).pause();
    await waitUntil(async () => (await shares()).queries_running === 1, 10_000, 'the query to run');

    const refusedBefore = (await shares()).ingest_refused_for_queries;
    const refused = await postJson(`${server.api}/ingest`, batch(BUFFERED_BEFORE + 1, 1));
    assertError(refused, 503, 'BACKPRESSURE');
    assert.match(refused.body.error.message, /queries are running, and ingest may fill server\.ingest_share = 0\.5/);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal((await shares()).ingest_refused_for_queries, refusedBefore + 1);
    const metrics = (await request(`${server.url}/metrics`)).text;
    assert.match(metrics, new RegExp(`^trawl_ingest_refused_for_queries_total ${refusedBefore + 1}$`, 'm'));

    stream.destroy();
    await waitUntil(async () => (await shares()).queries_running === 0, 10_000, 'the query to end with its client');
    assert.equal((await postJson(`${server.api}/ingest`, batch(BUFFERED_BEFORE + 1, 1))).status, 200);
    const stats = (await request(`${server.api}/stats`)).body.data;
    assert.equal(stats.buffered_events, BUFFERED_BEFORE + 2, 'every acknowledged event is buffered, the refused one is not');
  });

  it('/status and /metrics report each memory part, and a bounded part stays within its bound', async () => {
    // Distinct answers for the result cache to keep, together far more than its bound (64 KiB).
    for (let n = 0; n < 30; n++) {
      const answer = await postJson(`${server.api}/query`, { q: `from main | where n >= ${n * 1000} | head 20` });
      assert.equal(answer.status, 200, answer.text);
    }
    const cache = (await request(`${server.api}/cache/stats`)).body.data;
    assert.ok(cache.evictions > 0, `the cache evicted to stay in its bound: ${JSON.stringify(cache)}`);
    const memory = (await request(`${server.api}/status`)).body.data.memory;
    const parts = memory.parts as Record<string, { bytes: number; max_bytes: number | null }>;
    assert.deepEqual(Object.keys(parts).sort(), [
      'codec_worker_heaps',
      'ingest_worker_heaps',
      'main_buffers',
      'main_heap',
      'query_block_cache',
      'query_worker_heaps',
      'result_cache',
      'rocksdb_block_cache',
      'rocksdb_memtables',
      'rocksdb_table_readers',
      'write_buffer',
    ]);
    assert.equal(parts.result_cache!.max_bytes, 64 * 1024);
    assert.ok(parts.result_cache!.bytes > 0 && parts.result_cache!.bytes <= 64 * 1024, JSON.stringify(parts.result_cache));
    assert.equal(parts.rocksdb_memtables!.max_bytes, 32 * 1024 * 1024);
    // The write-buffer records of 60,002 buffered events sit in the memtables.
    assert.ok(
      parts.rocksdb_memtables!.bytes > 0 && parts.rocksdb_memtables!.bytes <= 32 * 1024 * 1024,
      JSON.stringify(parts.rocksdb_memtables),
    );
    assert.ok(parts.write_buffer!.bytes > 0);
    assert.ok(parts.query_block_cache!.bytes <= parts.query_block_cache!.max_bytes!);
    // The queries ran in the query workers, and 10,000-event bodies were parsed in the ingest workers: each reported its heap.
    assert.ok(parts.query_worker_heaps!.bytes > 0 && parts.ingest_worker_heaps!.bytes > 0, JSON.stringify(parts));
    assert.ok(memory.rss_bytes > 0);

    const metrics = (await request(`${server.url}/metrics`)).text;
    assert.match(metrics, /^trawl_memory_bytes\{part="rocksdb_memtables"\} [1-9]\d*$/m);
    assert.match(metrics, /^trawl_memory_max_bytes\{part="rocksdb_memtables"\} 33554432$/m);
    assert.match(metrics, /^trawl_memory_max_bytes\{part="result_cache"\} 65536$/m);
  });
});

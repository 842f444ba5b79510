/**
 * `server.ingest_workers`, `server.query_workers` and `server.codec_workers` size the node's worker
 * pools (0, the default, sizes them from the cores), so several nodes on one machine need not each
 * start threads for the whole machine. The Prometheus gauge shows what each pool runs.
 */
import { strict as assert } from 'assert';
import { assertError, dispose } from '../helpers/api';
import { request, TestServer } from '../helpers/server';

function threadsByPool(exposition: string): Record<string, number> {
  const pools: Record<string, number> = {};
  for (const match of exposition.matchAll(/^trawl_worker_threads\{pool="(\w+)"\} (\d+)$/gm)) pools[match[1]!] = Number(match[2]);
  return pools;
}

describe('api: worker thread counts', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  afterEach(async () => {
    await dispose(server);
    server = undefined;
  });

  it('the counts set are the threads each pool runs, and queries and ingest work with them', async () => {
    server = await TestServer.start({ set: { 'server.ingest_workers': 3, 'server.query_workers': 1, 'server.codec_workers': 2 } });
    assert.deepEqual(threadsByPool((await request(`${server.url}/metrics`)).text), { ingest: 3, query: 1, codec: 2 });
    const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ message: `line ${i}`, host: `h${i % 7}` })).join('\n');
    const ingest = await request(`${server.api}/ingest/raw?index=main`, {
      method: 'POST',
      body: lines,
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(ingest.status, 200, JSON.stringify(ingest.body));
    const answer = await request(`${server.api}/query`, {
      method: 'POST',
      body: JSON.stringify({ q: 'from main | stats count() as n' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.rows[0][0], 2000, JSON.stringify(answer.body.data));
  });

  it('0 sizes each pool from the cores: at least one thread each', async () => {
    server = await TestServer.start();
    const pools = threadsByPool((await request(`${server.url}/metrics`)).text);
    assert.deepEqual(Object.keys(pools).sort(), ['codec', 'ingest', 'query']);
    for (const [pool, count] of Object.entries(pools)) assert.ok(count >= 1, `${pool}: ${count}`);
  });

  it('a count out of range fails the start, naming the key; the section is not patched live', async () => {
    for (const [key, value] of [
      ['server.query_workers', -1],
      ['server.codec_workers', 65],
    ] as const) {
      await assert.rejects(
        TestServer.start({ set: { [key]: value } }),
        (error: Error) => error.message.includes(key) && /server exited \(1\)/.test(error.message),
      );
    }
    server = await TestServer.start();
    const patched = await request(`${server.api}/config`, {
      method: 'PATCH',
      body: JSON.stringify({ server: { ingest_workers: 2 } }),
      headers: { 'content-type': 'application/json' },
    });
    assertError(patched, 400, 'VALIDATION_ERROR');
  });
});
